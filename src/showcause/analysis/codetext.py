"""What counts as code or config, and its text with comments and docstrings blanked out.

A dangling reference must sit in code or config, never in a comment, a docstring or prose. Blanking
(spaces, newlines kept) preserves line and column numbers, so a line of the result can be checked
directly for a name.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from functools import cache, lru_cache

from tree_sitter import Node, Query

from showcause.analysis.configtext import DATA_CONFIG, blank_config_prose, config_line_keys
from showcause.core.analysis_budget import AnalysisBudget, parse_seconds
from showcause.symbols.languages import ParseTimeout, captures, get_language, language_for, parse_within

__all__ = ["code_text", "config_keys", "file_class", "is_data_config", "is_prose", "name_pattern"]

_CONFIG_HASH = {".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".env", ".properties", ".sh", ".bash"}
_CONFIG_PLAIN = {".json"}
_CONFIG_SQL = {".sql"}
_CONFIG_MARKUP = {".html", ".htm", ".xml"}
_PROSE = {".md", ".markdown", ".rst", ".txt", ".adoc", ".rtf"}
_PROSE_NAMES = ("changelog", "changes", "history", "news", "readme", "license", "authors", "contributing", "notice")


def file_class(path: str) -> str:
    """code | config | prose | other."""
    name = path.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    ext = name[dot:] if dot > 0 else ""
    if language_for(path):
        return "code"
    if ext in _PROSE or name.split(".", 1)[0] in _PROSE_NAMES:
        return "prose"
    if ext in _CONFIG_HASH | _CONFIG_PLAIN | _CONFIG_SQL | _CONFIG_MARKUP or name in (".env", "dockerfile", "makefile"):
        return "config"
    return "other"


def _ext(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name[name.rfind("."):] if "." in name else name


def is_data_config(path: str) -> bool:
    """A config file made of keys and values (JSON, TOML, YAML, INI, .env, .properties), not a script."""
    return file_class(path) == "config" and _ext(path) in DATA_CONFIG


# Every byte but \r and \n becomes a space: one C-level pass (a per-byte regex took 0.5 s for 5 MB).
_BLANKED = bytes(b if b in b"\r\n" else 0x20 for b in range(256))


def _blank(buf: bytearray, start: int, end: int) -> None:
    buf[start:end] = buf[start:end].translate(_BLANKED)


_SQL_START = re.compile(r"^\s*(select|insert|update|delete|with|create|alter|drop|replace|merge|upsert)\b", re.I)
_STRING_NODES = ("string", "template_string")
_CONTENT_NODES = ("string_content", "string_fragment", "escape_sequence")


def is_prose(text: str) -> bool:
    """A string literal that reads as words (a message, a test title), not as code, a key or SQL.

    Names inside prose are not uses of a symbol: 'adds VAT to the subtotal' does not use `subtotal`.
    """
    return any(c.isspace() for c in text.strip()) and not _SQL_START.match(text)


@cache
def _blank_query(language: str) -> Query:
    """Comments, string literals and string statements, found by tree-sitter in one pass over the tree
    (walking every node in Python cost more than the parse)."""
    lang = get_language(language)
    kinds = [k for k in ("comment", "html_comment") if lang.id_for_node_kind(k, True)]
    source = "[" + " ".join(f"({k})" for k in kinds) + "] @comment\n"
    source += "[" + " ".join(f"({k})" for k in _STRING_NODES if lang.id_for_node_kind(k, True)) + "] @string\n"
    if language == "python":
        source += "(expression_statement [(string) (concatenated_string)]) @statement\n"
    return Query(lang, source)


# Calls that look a name up by a string: `getattr(x, "name")`, `import_module("pkg.name")`, `cfg.get("name")`.
_NAME_READERS = frozenset({"getattr", "setattr", "hasattr", "delattr", "attrgetter", "import_module", "__import__",
                           "require", "get", "pop", "setdefault", "getenv"})


def _names_by_string(node: Node) -> bool:
    """Whether a string literal is how the code names something: a subscript (`cfg["name"]`) or an argument
    of a lookup by name."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type in ("subscript", "subscript_expression"):
        return node not in (parent.child_by_field_name("value"), parent.child_by_field_name("object"))
    call = parent.parent if parent.type in ("argument_list", "arguments") else None
    fn = call.child_by_field_name("function") if call is not None else None
    if fn is not None and fn.type in ("attribute", "member_expression"):
        fn = fn.child_by_field_name("attribute") or fn.child_by_field_name("property")
    return fn is not None and (fn.text or b"").decode("utf-8", "replace") in _NAME_READERS


def _blanked_nodes(language: str, root: Node, strict: bool) -> Iterator[Node]:
    """Comments; Python string statements (docstrings and bare strings used as comments); and the content
    pieces of prose string literals (their interpolations are code and stay). `strict`: the content of
    every string literal but SQL and the ones that name something (`_names_by_string`)."""
    caps = captures(_blank_query(language), root)
    yield from caps.get("comment", [])
    for n in caps.get("statement", []):
        if n.named_child_count == 1:
            yield n
    for n in caps.get("string", []):
        parts = [c for c in n.children if c.type in _CONTENT_NODES]
        text = "".join((c.text or b"").decode("utf-8", "replace") for c in parts)
        if is_prose(text) or (strict and not _SQL_START.match(text) and not _names_by_string(n)):
            yield from parts


# Scanners over whole files run on the host on untrusted input, so each is one left-to-right pass. A regex
# like `/\*.*?\*/` is not: from every `/*` without a close it scans to the end of the file (quadratic).
_JSON_BODY = re.compile(rb'(?:[^"\\\n]++|\\.)*+')   # a string's content; possessive: nothing to backtrack


def _json_strings(data: bytes) -> Iterator[tuple[int, int]]:
    """Spans of the one-line JSON string literals (`"…"`, escapes allowed), left to right.

    A string still open at its line's end (or at a backslash there) is no string, and neither is any quote
    inside it: each of those is escaped, so a string opened there would end at the same place.
    """
    start = data.find(b'"')
    while start >= 0:
        body = _JSON_BODY.match(data, start + 1)          # always matches, if only the empty string
        end = body.end() if body is not None else start + 1
        if data[end:end + 1] == b'"':
            yield start, end + 1
            end += 1
        start = data.find(b'"', end)


def _blank_json_prose(data: bytes) -> bytes:
    buf = bytearray(data)
    for start, end in _json_strings(data):
        if is_prose(data[start + 1:end - 1].decode("utf-8", "replace")):
            _blank(buf, start, end)
    return bytes(buf)


_HASH_COMMENT = re.compile(rb"(?m)(^|[ \t])[#;][^\n]*")   # one line per match: linear
_SQL_OPENERS = re.compile(rb"--|/\*")
_MARKUP_OPENERS = re.compile(rb"<!--")
_CLOSERS = {b"--": b"\n", b"/*": b"*/", b"<!--": b"-->"}    # a line comment ends before its newline


def _comment_spans(data: bytes, openers: re.Pattern[bytes]) -> Iterator[tuple[int, int]]:
    """Spans of the comments that open at `openers` and end at their closer, left to right; a comment
    never closed runs to the end of the file. Each byte is looked at once or twice."""
    pos = 0
    while (m := openers.search(data, pos)) is not None:
        closer = _CLOSERS[m.group()]
        end = data.find(closer, m.end())
        pos = len(data) if end < 0 else end if closer == b"\n" else end + len(closer)
        yield m.start(), pos


def _blank_spans(data: bytes, spans: Iterator[tuple[int, int]]) -> bytes:
    buf = bytearray(data)
    for start, end in spans:
        _blank(buf, start, end)
    return bytes(buf)


def _code_text(path_kind: str, data: bytes, seconds: float | None) -> str:
    lang, _, ext = path_kind.partition("|")
    ext, _, strict = ext.partition("|")
    if lang:
        buf = bytearray(data)
        for n in _blanked_nodes(lang, parse_within(lang, data, seconds).root_node, bool(strict)):
            _blank(buf, n.start_byte, n.end_byte)
        out = bytes(buf)
    elif ext in _CONFIG_SQL:
        out = _blank_spans(data, _comment_spans(data, _SQL_OPENERS))
    elif ext in _CONFIG_MARKUP:
        out = _blank_spans(data, _comment_spans(data, _MARKUP_OPENERS))
    elif ext in _CONFIG_PLAIN:
        out = _blank_json_prose(data)
    else:
        out = _blank_spans(data, (m.span() for m in _HASH_COMMENT.finditer(data)))
        if ext in DATA_CONFIG:
            out = blank_config_prose(out, ext)
    return out.decode("utf-8", "replace")


class _TextCache:
    """Code text by (content digest, kind), least recently used first out, bounded by the characters held
    (entries are whole files, up to max_analysis_bytes each). Base and head share most of their files."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self._items: OrderedDict[tuple[str, str], str | ParseTimeout] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> str | ParseTimeout | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], value: str | ParseTimeout) -> None:
        size = len(value) if isinstance(value, str) else 0
        with self._lock:
            if key in self._items or size > self.max_chars:
                return
            self._items[key] = value
            self._chars += size
            while self._chars > self.max_chars:
                _, old = self._items.popitem(last=False)
                self._chars -= len(old) if isinstance(old, str) else 0


_texts = _TextCache(64_000_000)


def code_text(path: str, data: bytes, budget: AnalysisBudget | None = None, *, strict: bool = False) -> str | None:
    """The file's text with comments/docstrings blanked (and prose values, in a config file of keys and
    values); None for prose and unknown kinds, and for code whose parse gave up (then recorded in `budget`:
    see showcause.core.analysis_budget). `strict`: in code, string literals are blanked too, but for SQL and
    the strings that name something (`cfg["name"]`, `getattr(x, "name")`): what is left is identifiers."""
    kind = file_class(path)
    if kind not in ("code", "config") or b"\x00" in data[:8192]:
        return None
    lang = language_for(path) or ""
    kind_key = f"{lang}|{_ext(path)}{'|strict' if strict and lang else ''}"
    key = (hashlib.blake2b(data, digest_size=16).hexdigest(), kind_key)
    found = _texts.get(key)
    if found is None:
        seconds = budget.parse_limit(len(data)) if budget is not None else None
        try:
            found = _code_text(key[1], data, seconds)
        except ParseTimeout as exc:
            found = exc
        # A parse cut short by the end of a budget says nothing about the next review's.
        if isinstance(found, str) or seconds is None or seconds >= parse_seconds(len(data)):
            _texts.put(key, found)
    if isinstance(found, ParseTimeout):
        if budget is not None:
            budget.gave_up(path)
        return None
    return found


def config_keys(path: str, text: str) -> dict[int, set[str]]:
    """The words of the keys on each line (1-based) of a config file of keys and values, from its code text."""
    ext = _ext(path)
    if not is_data_config(path):
        return {}
    if ext not in _CONFIG_PLAIN:
        return config_line_keys(text, ext)
    out: dict[int, set[str]] = {}
    data = text.encode()
    line, counted = 1, 0
    for start, end in _json_strings(data):
        if data[end:end + 64].lstrip(b" \t\r\n")[:1] == b":":
            line, counted = line + data.count(b"\n", counted, start), start
            out.setdefault(line, set()).update(_KEY_WORD.findall(data[start + 1:end - 1].decode("utf-8", "replace")))
    return out


_KEY_WORD = re.compile(r"[A-Za-z0-9_$]+")


@lru_cache(maxsize=8192)
def name_pattern(name: str) -> re.Pattern[str]:
    """A whole-word match for an identifier (``$`` counts as a word character, as in JavaScript)."""
    return re.compile(rf"(?<![A-Za-z0-9_$]){re.escape(name)}(?![A-Za-z0-9_$])")
