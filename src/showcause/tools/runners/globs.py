"""Test files by glob: the discovery of runners that have no collection of their own to ask."""

from __future__ import annotations

import os
from pathlib import Path

from showcause.core.globmatch import compile_glob

__all__ = ["discover_tests"]


def discover_tests(root: Path, globs: tuple[str, ...]) -> list[str]:
    """Files under `root` that one of `globs` matches (linear-time matching: the globs are the policy's, which a
    repository may set; the policy refuses a glob the matcher cannot read)."""
    patterns = [g for g in map(compile_glob, globs) if g is not None]
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules", "__pycache__")
                             and not os.path.islink(os.path.join(dirpath, d)))
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if not os.path.islink(full) and any(p.match(rel) for p in patterns):
                found.append(rel)
    return sorted(found)
