"""showcause: a code-review judge that must show cause before it blocks a change."""

__all__ = ["__version__"]

__version__ = "0.1.0"
