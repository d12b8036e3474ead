"""Bounded TOML parsing of outside input (`--config`, a repository's .showcause.toml and pyproject.toml).

tomllib recurses once per nested array or inline table (a RecursionError past ~1000 levels) and takes
time quadratic in the parts of one dotted key (`a.b.c…`: 20,000 parts take seconds, 100,000 minutes). So
before tomllib runs, a linear scan refuses brackets nested deeper than the cap and keys with more dotted
parts than it; after, the document's total nesting (tables, dotted keys and values together) is checked.
Refusals are `showcause.core.jsonsafe.ParseLimitError`, a ValueError the caller maps like TOMLDecodeError.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from showcause.core.jsonsafe import MAX_CONFIG_BYTES, MAX_DEPTH, ParseLimitError, check_depth, check_size, read_capped

__all__ = ["load_file", "loads"]

# Strings and comments are skipped whole (a multi-line string may end with up to two extra quotes);
# brackets count nesting; a dot counts a part of the current key; `=`, `,` and line ends start a new key.
_TOKENS = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*(?:"{3,5}|\Z)'
    r"|'''(?:[^']|'(?!''))*(?:'{3,5}|\Z)"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'
    r"|'[^'\n]*'?"
    r"|\#[^\n]*"
    r"|[\[{\]}.=,\n]",
    re.S,
)


def _scan(text: str, max_depth: int) -> None:
    depth = dots = 0
    for match in _TOKENS.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth, dots = depth + 1, 0
            if depth > max_depth:
                raise ParseLimitError(f"nested deeper than {max_depth} levels (at character {match.start()})",
                                      limit=max_depth, kind="depth")
        elif char in "]}":
            depth, dots = max(0, depth - 1), 0
        elif char == ".":
            dots += 1
            if dots >= max_depth:
                raise ParseLimitError(f"a dotted key with more than {max_depth} parts (at character "
                                      f"{match.start()})", limit=max_depth, kind="depth")
        elif char in "=,\n":
            dots = 0


def loads(text: str, *, max_bytes: int = MAX_CONFIG_BYTES, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """tomllib.loads within the caps; raises ParseLimitError or tomllib.TOMLDecodeError (both ValueErrors)."""
    check_size(text, max_bytes)
    if text.count("[") + text.count("{") + text.count(".") >= max_depth:   # else nothing can reach the cap
        _scan(text, max_depth)
    doc = tomllib.loads(text)
    check_depth(doc, max_depth)
    return doc


def load_file(path: Path, *, max_bytes: int = MAX_CONFIG_BYTES, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """`loads` of a file's text; OSError and UnicodeDecodeError pass through for the caller to word."""
    return loads(read_capped(path, max_bytes), max_bytes=max_bytes, max_depth=max_depth)
