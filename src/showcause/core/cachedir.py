"""Where showcause keeps what it may reuse between runs (base results, prepared case sources and environments)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_root"]


def cache_root() -> Path:
    """`SHOWCAUSE_CACHE_DIR`, else `$XDG_CACHE_HOME/showcause`, else `~/.cache/showcause`."""
    root = os.environ.get("SHOWCAUSE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "showcause")
    return Path(root)
