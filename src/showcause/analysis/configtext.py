"""Keys and values of the line-based config formats (TOML, YAML, INI, .env, .properties).

A name in a config file refers to code when it is a key, or when it is a whole value (`handler =
"rotate_logs"`, `- pkg.jobs:run`): that is how a config file names what code reads or calls. A word among
other words in a value (`description = "split each line"`, YAML block text) is prose and is blanked, as
prose strings in code and JSON are. Each scanner here is one left-to-right pass over untrusted input.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["DATA_CONFIG", "blank_config_prose", "config_line_keys", "quoted_spans"]

# The config formats made of keys and values; scripts, SQL and markup are not (their words stay as they are).
DATA_CONFIG = frozenset({".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".env", ".properties", ".json"})

_WORD = re.compile(r"[A-Za-z0-9_$]+")
_DOUBLE_BODY = re.compile(rb'(?:[^"\\\n]++|\\.)*+')     # possessive: nothing to backtrack
_SPACE = re.compile(rb"\S\s++\S")                          # whitespace inside a scalar: prose
_ITEM_BREAK = re.compile(rb"[,\[\]{}]")
_SEP = re.compile(rb"[=\[\]{},]|:(?=[ \t\r]|$)")           # a key's separator, or what ends a key
_LEAD = re.compile(rb"\s*+(?:-[ \t]++)*+")                  # indentation and YAML sequence items: `- key: v`
_QUOTE = b"\x01"                                           # a quoted string's ends, once masked
_HEADERS = frozenset({".toml", ".ini", ".cfg", ".conf"})   # the formats with `[table]` lines


def quoted_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """Spans of the one-line `"…"` (escapes allowed) and `'…'` strings of `data`, left to right.

    A string still open at its line's end is no string, and no quote inside it opens one: a YAML value
    such as `don't stop` is unquoted text. Each byte is looked at a bounded number of times: the next
    quote of each kind is searched for again only once the scan has passed it."""
    pos, dq, sq, nl = 0, -1, -1, -1
    while True:
        if dq < pos:
            dq = data.find(b'"', pos)
            dq = len(data) if dq < 0 else dq
        if sq < pos:
            sq = data.find(b"'", pos)
            sq = len(data) if sq < 0 else sq
        at = min(dq, sq)
        if at == len(data):
            return
        if nl < at:
            nl = data.find(b"\n", at)
            nl = len(data) if nl < 0 else nl
        if at == dq:
            body = _DOUBLE_BODY.match(data, at + 1, nl)
            close = body.end() if body is not None else at + 1
        else:
            close = sq = data.find(b"'", at + 1, nl)          # found or not, the next `'` is past the scan
            close = nl if close < 0 else close
        if close < nl and data[close:close + 1] == data[at:at + 1]:
            yield at, close + 1
            close += 1
        pos = close


def _mask(line: bytes) -> tuple[bytes, list[tuple[int, int]]]:
    """The line with its quoted strings' contents replaced (a `=`, `:` or `,` inside a string separates
    nothing), and the strings' spans."""
    spans = list(quoted_spans(line))
    buf = bytearray(line)
    for s, e in spans:
        buf[s:e] = _QUOTE + b"x" * (e - s - 2) + _QUOTE
    return bytes(buf), spans


@dataclass(frozen=True)
class _Line:
    start: int          # where the line's content starts (after indentation and YAML `- ` items)
    key: int            # where its key ends (the separator), or -1: a line without a key
    header: bool        # a TOML/INI table header (`[table.name]`): all key

    @property
    def value(self) -> int:
        return self.key + 1 if self.key >= 0 else self.start


def _lead(masked: bytes, pos: int) -> int:
    m = _LEAD.match(masked, pos)
    return m.end() if m is not None else pos


def _parse(masked: bytes, ext: str) -> _Line:
    start = _lead(masked, 0)
    if ext == ".env" and masked.startswith(b"export ", start):
        start = _lead(masked, start + 7)
    body = masked[start:].rstrip()
    if body.startswith(b"[") and body.endswith(b"]") and ext in _HEADERS and not re.search(rb"[=,]", body):
        return _Line(start, -1, True)
    sep = _SEP.search(masked, start)
    if sep is not None and sep.group() in (b"=", b":"):
        key = masked[start:sep.start()].strip()
        # A plain key holds no space: `first line: of a text` is a value, however YAML reads it.
        if key and (key.startswith(_QUOTE) or not re.search(rb"\s", key)):
            return _Line(start, sep.start(), False)
    return _Line(start, -1, False)


def _items(masked: bytes, start: int) -> Iterator[tuple[int, int, int]]:
    """The scalars of a value, pieces between flow-collection brackets and commas (`[a, b]`, `{k = v}`):
    (start, where the separator of an inline table's key is or -1, end)."""
    flow = b"{" in masked
    pos = start
    for m in [*_ITEM_BREAK.finditer(masked, start), None]:
        end = m.start() if m is not None else len(masked)
        piece = masked[pos:end]
        inner = (piece.find(b"=") if b"=" in piece else piece.find(b": ")) if flow else -1
        yield pos, (pos + inner if inner > 0 else -1), end
        if m is not None:
            pos = m.end()


def _prose_spans(line: bytes, ext: str) -> Iterator[tuple[int, int]]:
    masked, spans = _mask(line)
    parsed = _parse(masked, ext)
    if parsed.header:
        return
    for s, e in spans:                                          # quoted scalars: prose when they hold spaces
        if s >= parsed.value and _SPACE.search(line, s + 1, e - 1):
            yield s, e
    for s, inner, e in _items(masked, parsed.value):
        s = inner + 1 if inner >= 0 else s                      # an inline table's `k = v`: v is the value
        text = masked[s:e]
        if _QUOTE not in text and _SPACE.search(text):
            yield s, e


def blank_config_prose(data: bytes, ext: str) -> bytes:
    """`data` (comments already blanked) with every prose value blanked in place (spaces, newlines kept)."""
    buf = bytearray(data)
    pos = 0
    for line in data.split(b"\n"):
        for s, e in _prose_spans(line, ext):
            buf[pos + s:pos + e] = b" " * (e - s)
        pos += len(line) + 1
    return bytes(buf)


def config_line_keys(text: str, ext: str) -> dict[int, set[str]]:
    """The words of each line's keys (1-based lines): `key =`, `key:`, `[table.name]`, `{ inline = 1 }`."""
    out: dict[int, set[str]] = {}
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.encode()
        masked, _ = _mask(line)
        parsed = _parse(masked, ext)
        keys = [line[parsed.start:]] if parsed.header else [line[parsed.start:parsed.key]] if parsed.key >= 0 else []
        keys += [line[s:inner] for s, inner, _ in _items(masked, parsed.value) if inner >= 0]
        words = {w for k in keys for w in _WORD.findall(k.decode("utf-8", "replace"))}
        if words:
            out[number] = words
    return out
