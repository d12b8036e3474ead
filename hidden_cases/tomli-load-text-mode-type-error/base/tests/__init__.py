__all__ = ("tomllib",)

# By changing this one line, we can run the tests against
# a different module name.
import tomli as tomllib
