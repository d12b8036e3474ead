"""Test files by glob: the discovery of runners that have no collection of their own to ask."""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["discover_tests", "glob_to_regex"]


def glob_to_regex(glob: str) -> re.Pattern[str]:
    """`**/` spans directories, `*` and `?` stay within one path segment."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def discover_tests(root: Path, globs: tuple[str, ...]) -> list[str]:
    patterns = [glob_to_regex(g) for g in globs]
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
