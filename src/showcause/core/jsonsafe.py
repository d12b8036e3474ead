"""Bounded JSON parsing of outside input: a size cap and a nesting cap, checked before the decoder runs.

Python's json decoder, pydantic and every recursive walk of a parsed value recurse once per nesting level,
so a deeply nested document from a model, a file or a sandboxed tool would end in a RecursionError. Every
parse of outside input goes through `loads`/`load_file` here (TOML through `showcause.core.tomlsafe`).

`ParseLimitError` is a plain ValueError, not a ShowcauseError: one input kind means a different documented
code at each site (MALFORMED_RESPONSE for a model's answer, INVALID_INPUT for a case or decision file,
CONFIG_ERROR for a scripted file, a refused call for tool arguments, a failed run for a tool's output), so
each caller maps it, as it already maps json.JSONDecodeError (also a ValueError).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from showcause.core.errors import InputError

__all__ = [
    "MAX_ARGS_BYTES",
    "MAX_CASE_BYTES",
    "MAX_CONFIG_BYTES",
    "MAX_DECISION_BYTES",
    "MAX_DEPTH",
    "MAX_RECORD_BYTES",
    "MAX_RESPONSE_BYTES",
    "MAX_ROW_BYTES",
    "MAX_SCRIPT_BYTES",
    "MAX_TEXT_BYTES",
    "MAX_TOOL_JSON_BYTES",
    "ParseLimitError",
    "check_depth",
    "check_size",
    "extent",
    "load_file",
    "load_object",
    "loads",
    "loads_input",
    "read_capped",
]

# Nesting: real documents (answers, tool arguments, cases, pyright output) stay under 10 levels; 64 keeps
# every later walk of the value far from Python's recursion limit (1000).
MAX_DEPTH = 64
# Sizes, in UTF-8 bytes, per kind of input.
MAX_RESPONSE_BYTES = 8_000_000     # one HTTP response body from a model provider
MAX_TEXT_BYTES = 4_000_000         # a model's answer text (8,000 completion tokens are ~32 kB)
MAX_ARGS_BYTES = 1_000_000         # tool-call arguments (a model's, or `tools run --args`)
MAX_CASE_BYTES = 4_000_000         # case.json
MAX_DECISION_BYTES = 1_000_000     # a decision file (`review --decision`)
MAX_SCRIPT_BYTES = 32_000_000      # a `scripted:FILE` conversation
MAX_CONFIG_BYTES = 1_000_000       # TOML policy files, pyproject.toml, pyrightconfig.json
MAX_TOOL_JSON_BYTES = 64_000_000   # JSON a sandboxed tool prints (pyright --outputjson)
MAX_ROW_BYTES = 1_000_000          # one line of a JSONL file (test report rows)
MAX_RECORD_BYTES = 16_000_000      # one line of a benchmark checkpoint or spend ledger, or its run info

# A string (whole, or unterminated to the end), or one bracket: the only tokens that decide nesting.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[{\]}]', re.S)


class ParseLimitError(ValueError):
    """Input refused before parsing: larger than its size cap or nested deeper than its depth cap."""

    def __init__(self, message: str, *, limit: int, kind: str) -> None:
        super().__init__(message)
        self.msg = message
        self.limit = limit
        self.kind = kind   # "size" or "depth"


def _too_deep(max_depth: int, where: str) -> ParseLimitError:
    return ParseLimitError(f"nested deeper than {max_depth} levels{where}", limit=max_depth, kind="depth")


def check_size(data: str | bytes, max_bytes: int) -> None:
    """ParseLimitError when `data` is longer than `max_bytes` (a str counted as UTF-8)."""
    size = len(data)
    if isinstance(data, str) and max_bytes >= size and size * 4 > max_bytes:
        size = len(data.encode("utf-8", "surrogatepass"))   # only near the cap is the exact size needed
    if size > max_bytes:
        raise ParseLimitError(f"larger than {max_bytes} bytes", limit=max_bytes, kind="size")


def _brackets(text: str, start: int) -> Iterator[tuple[int, int]]:
    """(position, +1 or -1) of every bracket outside strings from `start`, lexed as the decoder lexes."""
    for match in _TOKENS.finditer(text, start):
        char = text[match.start()]
        if char != '"':
            yield match.start(), 1 if char in "[{" else -1


def extent(text: str, start: int, max_depth: int = MAX_DEPTH) -> int | None:
    """The end of the bracketed value opening at `text[start]`, or None when it never closes.

    Raises ParseLimitError when it nests deeper than `max_depth` first. The decoder reads the same tokens
    and stops at its first syntax error, so a value this accepts can be decoded from `start` without the
    decoder nesting deeper than `max_depth`.
    """
    depth = 0
    for pos, step in _brackets(text, start):
        depth += step
        if depth > max_depth:
            raise _too_deep(max_depth, f" (at character {pos})")
        if depth <= 0:
            return pos + 1
    return None


def loads(text: str | bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads, after refusing input beyond `max_bytes` or nested beyond `max_depth`.

    Raises ParseLimitError or json.JSONDecodeError (both ValueErrors); bytes must be UTF-8.
    """
    check_size(text, max_bytes)
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if text.count("[") + text.count("{") > max_depth:   # fewer brackets than the cap cannot nest past it
        extent(text, 0, max_depth)
    return json.loads(text)


def loads_input(text: str | bytes, *, max_bytes: int, label: str, refused: str = "") -> Any:
    """`loads` for input a user gave: a refusal or bad JSON is an InputError naming ``label`` (``refused``
    goes between the label and the reason of a refusal, e.g. " refused")."""
    try:
        return loads(text, max_bytes=max_bytes)
    except ParseLimitError as exc:
        raise InputError(f"{label}{refused}: {exc.msg}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{label}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None


def read_capped(path: Path, max_bytes: int) -> str:
    """The UTF-8 text of `path`, never reading more than `max_bytes` + 1 bytes of it.

    Raises OSError, UnicodeDecodeError or ParseLimitError.
    """
    with Path(path).open("rb") as fh:
        data = fh.read(max_bytes + 1)
    check_size(data, max_bytes)
    return data.decode("utf-8")


def load_file(path: Path, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """`loads` of a file's text; OSError and UnicodeDecodeError pass through for the caller to word."""
    return loads(read_capped(path, max_bytes), max_bytes=max_bytes, max_depth=max_depth)


def load_object(path: Path, *, max_bytes: int, missing: str, unreadable: str, not_object: str) -> dict[str, Any]:
    """A JSON object from a file a user named, or an InputError: `missing` when there is no such file,
    `unreadable` followed by the reason when it cannot be read or parsed within the caps, `not_object` when it
    holds something else (a case file, for example)."""
    try:
        raw = load_file(path, max_bytes=max_bytes)
    except FileNotFoundError:
        raise InputError(missing) from None
    except (OSError, ValueError) as exc:   # unreadable, not JSON, or beyond the caps
        raise InputError(f"{unreadable}{exc}") from None
    if not isinstance(raw, dict):
        raise InputError(not_object)
    return raw


def check_depth(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """ParseLimitError when a parsed value (dicts, lists, tuples) nests deeper than `max_depth`.

    Iterative, so it is safe on any value; for values that did not come through `loads` (a TOML document,
    a dict handed over by a library caller).
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list | tuple) else None
        if children is None:
            continue
        if depth > max_depth:
            raise _too_deep(max_depth, "")
        stack.extend((child, depth + 1) for child in children)
