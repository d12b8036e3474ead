"""showcause: a code-review judge that must show cause before it blocks a change."""

from showcause.core.version import __version__

__all__ = ["__version__"]
