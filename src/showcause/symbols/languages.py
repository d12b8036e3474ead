"""Which files are sources of which language, and the tree-sitter grammars and parsers for them.

Source files: supported extension (:data:`EXTENSIONS`), regular file (symlinks are never followed), at
most 1 MiB, no NUL byte in the first 8 KiB, readable, outside :data:`SKIP_DIRS`.  The queries run on the
parse trees are in :mod:`showcause.symbols.queries`.  Every parse of a tree's file goes through
:func:`parse_within`, which gives up after a time limit.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from functools import cache
from hashlib import blake2b

import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from showcause.core.analysis_budget import PARSE_GAVE_UP, parse_seconds
from showcause.sandbox.lifecycle import check_stopping, should_stop

__all__ = [
    "EXTENSIONS", "LANGUAGES", "MAX_FILE_BYTES", "MAX_QUERY_DEPTH", "REPARSE_AFTER_ERRORS", "SKIP_DIRS", "SNIFF_BYTES",
    "ParseTimeout", "Paths", "captures", "get_language", "get_parser", "language_for", "list_source_dir",
    "parse_within", "read_source", "resolve_python_import",
]  # fmt: skip

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
}  # fmt: skip

LANGUAGES: tuple[str, ...] = ("python", "javascript", "typescript", "tsx")
MAX_FILE_BYTES = 1 << 20
SNIFF_BYTES = 8192
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})
Paths = list[tuple[str, str]]  # (path relative to the tree root, absolute path)


def language_for(path: str) -> str | None:
    """Return the language of ``path`` from its extension, or None when unsupported."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:] or "\\" in path[dot:]:
        return None
    return EXTENSIONS.get(path[dot:].lower())


def read_source(path: str) -> bytes | None:
    """Return the content of a source file, or None if unreadable, over 1 MiB or binary (NUL in 8 KiB)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES or b"\0" in data[:SNIFF_BYTES]:
        return None
    return data


def list_source_dir(rel_dir: str, path: str) -> tuple[Paths, Paths] | None:
    """List subdirectories (minus SKIP_DIRS) and supported files of a directory; symlinks are skipped."""
    prefix = f"{rel_dir}/" if rel_dir else ""
    subdirs: Paths = []
    files: Paths = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                if entry.is_symlink():
                    continue
                name = entry.name
                if entry.is_dir(follow_symlinks=False):
                    if name not in SKIP_DIRS:
                        subdirs.append((prefix + name, entry.path))
                elif language_for(name) is not None and entry.is_file(follow_symlinks=False):
                    files.append((prefix + name, entry.path))
    except OSError:
        return None
    return subdirs, files


_GRAMMARS = {
    "python": tree_sitter_python.language,
    "javascript": tree_sitter_javascript.language,
    "typescript": tree_sitter_typescript.language_typescript,
    "tsx": tree_sitter_typescript.language_tsx,
}


@cache
def get_language(language: str) -> Language:
    """Return the tree-sitter Language for one of :data:`LANGUAGES`."""
    if language not in _GRAMMARS:
        raise ValueError(f"unsupported language: {language!r}")
    return Language(_GRAMMARS[language]())


_local = threading.local()


def get_parser(language: str) -> Parser:
    """Return a Parser for ``language``; parsers are not thread-safe, so there is one per thread."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    parser = parsers.get(language)
    if parser is None:
        parser = Parser(get_language(language))
        parsers[language] = parser
    return parser


class ParseTimeout(ValueError):
    """tree-sitter did not finish parsing a source within the time it was given."""


_READ_CHUNK = 1 << 16
REPARSE_AFTER_ERRORS = 1.0   # seconds; see parse_within
_GAVE_UP_SIZE = 4096
_gave_up: OrderedDict[bytes, None] = OrderedDict()  # sources whose parse ran out of its whole time limit
_gave_up_lock = threading.Lock()


def parse_within(language: str, data: bytes, seconds: float | None = None) -> Tree:
    """Parse ``data`` as ``language``; raise ParseTimeout after ``seconds`` or ``parse_seconds(len(data))``,
    whichever is less, and ``Interrupted``/``Cancelled`` as soon as the review is stopping.

    tree-sitter's error recovery is super-linear on some hostile input (an unclosed ``/*`` repeated), and
    ``parse(bytes)`` cannot be interrupted: only a parse that reads through a callback can, from its
    progress callback.  The tree of such a parse reads node text back through the callback, so the
    source is parsed again from the bytes, reusing the first tree: about 1% of a first parse on normal
    sources, but as long as the first where error recovery ran, and that pass holds the GIL and cannot be
    stopped.  So a tree with errors whose first pass took longer than ``REPARSE_AFTER_ERRORS`` gives up
    (normal code parses at about 6 MB/s: only hostile input or a file far over the size caps gets there),
    which keeps a signal or a cancellation waiting at most about that long.  A source that gave up once on its
    whole limit (not on a shorter ``seconds``) gives up at once the next time (the index and the code text
    of a review both parse each changed file).
    """
    full = parse_seconds(len(data))
    limit = full if seconds is None else min(seconds, full)
    key = blake2b(language.encode() + b"\0" + data, digest_size=16).digest()
    with _gave_up_lock:
        if key in _gave_up:
            raise ParseTimeout(PARSE_GAVE_UP)
    parser = get_parser(language)
    started = time.monotonic()
    deadline = started + limit
    try:
        first = parser.parse(lambda offset, _point: data[offset : offset + _READ_CHUNK],
                             progress_callback=lambda _offset, _errors: time.monotonic() > deadline or should_stop())
    except ValueError as exc:  # the progress callback cancelled it
        parser.reset()  # else the next parse would resume this one
        check_stopping()
        if limit >= full:
            _give_up(key)
        raise ParseTimeout(PARSE_GAVE_UP) from exc
    except BaseException:  # a signal's handler raised inside the progress callback
        parser.reset()
        raise
    if first.root_node.has_error and time.monotonic() - started > REPARSE_AFTER_ERRORS:
        _give_up(key)  # the second pass would take as long, and could not be stopped
        raise ParseTimeout(PARSE_GAVE_UP)
    return parser.parse(data, old_tree=first)


def _give_up(key: bytes) -> None:
    with _gave_up_lock:
        _gave_up[key] = None
        while len(_gave_up) > _GAVE_UP_SIZE:
            _gave_up.popitem(last=False)


# Query states keep their start depth in 16 bits: past 65 535 levels a query turns quadratic (140 KB of
# backticks, template literals tagging each other 70 000 deep, took 22 s against 0.05 s for 120 KB). No
# pattern starts deeper than this; real code is a few dozen levels deep. (The binding's progress callback
# for queries, which could cancel one, crashes the interpreter in tree-sitter 0.26.)
MAX_QUERY_DEPTH = 10_000


def captures(query: Query, node: Node) -> dict[str, list[Node]]:
    """``QueryCursor(query).captures(node)``, matching only below ``MAX_QUERY_DEPTH`` levels."""
    cursor = QueryCursor(query)
    cursor.set_max_start_depth(MAX_QUERY_DEPTH)
    return cursor.captures(node)


def _package_parts(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            parts = parts[len(parts) - parts[::-1].index(marker) :]
    if parts and parts[0] == "src":
        parts = parts[1:]
    return parts


def resolve_python_import(spec: str, rel: str) -> str:
    """Resolve a relative Python import (``..mod``) against the package of file ``rel``.

    The package is the file's directory relative to the tree root, taken after the last ``site-packages``
    / ``dist-packages`` component and without a leading ``src``.  Unresolvable specifiers are returned
    unchanged.
    """
    if not spec.startswith("."):
        return spec
    rest = spec.lstrip(".")
    level = len(spec) - len(rest)
    package = _package_parts(rel)
    if level - 1 > len(package):
        return spec
    parts = package[: len(package) - (level - 1)] + ([rest] if rest else [])
    return ".".join(parts) or spec
