"""A symbol index over a directory tree, refreshed incrementally.

* Walk: ``os.scandir``; symlinked files and directories are skipped entirely (never followed); ``.git``,
  ``node_modules``, ``__pycache__`` and ``.venv`` are skipped; so are files over 1 MiB, files with a NUL
  byte in their first 8 KiB and files that cannot be read.
* Refresh: a directory whose mtime is unchanged is not listed again (its cached listing is reused), every
  candidate file is ``lstat``-ed and only files whose ``(size, mtime_ns)`` changed are read; they are
  re-parsed only when their blake2b digest changed.  Timestamps within 2 s of the moment they were seen
  are "racy" (a same-size rewrite in the same clock tick would keep them unchanged), so such files and
  directories are re-checked by content / listing on the next refresh, as git does.
* Sharing: parsed results live in a process-wide LRU keyed by ``(language, digest)``, so trees that share
  content (base and head of a review) parse each distinct file once.  ``SymbolIndex.for_tree`` keeps the
  most recently used indexes per resolved root.
* ``SymbolHit.text`` is read from disk lazily, at lookup time: call :meth:`SymbolIndex.refresh` (or
  ``for_tree``) after the tree changed.
"""

from __future__ import annotations

import gc
import logging
import os
import stat
import threading
import time
from collections import OrderedDict
from hashlib import blake2b
from pathlib import Path
from typing import NamedTuple

from .extract import FileSymbols, SymbolHit, parse_symbols
from .languages import (
    MAX_FILE_BYTES,
    SKIP_DIRS,
    Paths,
    language_for,
    list_source_dir,
    read_source,
    resolve_python_import,
)

__all__ = [
    "CONTENT_CACHE_SIZE", "MAX_FILE_BYTES", "SKIP_DIRS", "SymbolIndex", "clear_caches", "symbols_for_content",
]  # fmt: skip

CONTENT_CACHE_SIZE = 50_000
TREE_CACHE_SIZE = 16
_LINE_CACHE_SIZE = 64
_RACY_NS = 2_000_000_000
_GC_PAUSE_FILES = 500
_KINDS = ("definition", "reference", "any")

_log = logging.getLogger(__name__)
_content: OrderedDict[tuple[str, bytes], FileSymbols] = OrderedDict()
_content_lock = threading.Lock()
_trees: OrderedDict[Path, SymbolIndex] = OrderedDict()
_trees_lock = threading.Lock()


def symbols_for_content(
    data: bytes,
    language: str,
    file: str = "",
    digest: bytes | None = None,
) -> FileSymbols:
    """Return the symbols of ``data``, parsing it only if the shared content cache does not hold them."""
    key = (language, digest if digest is not None else blake2b(data, digest_size=16).digest())
    with _content_lock:
        symbols = _content.get(key)
        if symbols is not None:
            _content.move_to_end(key)
            return symbols
    symbols = parse_symbols(data, language, file)
    with _content_lock:
        _content[key] = symbols
        while len(_content) > CONTENT_CACHE_SIZE:
            _content.popitem(last=False)
    return symbols


def clear_caches() -> None:
    """Forget every cached parse result and index (for tests and cold-cache benchmarks)."""
    with _content_lock:
        _content.clear()
    with _trees_lock:
        _trees.clear()


class _Entry(NamedTuple):
    size: int
    mtime_ns: int
    digest: bytes
    racy: bool  # mtime too recent to trust: re-hash on the next refresh
    symbols: FileSymbols


_Pending = tuple[str, str, int, int, _Entry | None]  # rel, path, size, mtime_ns, previous entry


class _Listing(NamedTuple):
    """Cached listing of one directory: supported regular files and subdirectories."""

    mtime_ns: int
    racy: bool
    subdirs: tuple[tuple[str, str], ...]
    files: tuple[tuple[str, str], ...]


class SymbolIndex:
    """Definitions, references and imports of every supported source file under ``root``."""

    def __init__(self, root: Path) -> None:
        """Index ``root`` (resolved) right away; prefer :meth:`for_tree`, which shares indexes."""
        self._root = Path(root).resolve()
        if not self._root.is_dir():
            raise NotADirectoryError(str(root))
        self._base = str(self._root)
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] = {}
        self._listings: dict[str, _Listing] = {}
        self._sorted: list[str] | None = None
        self._lines: OrderedDict[tuple[str, bytes], list[bytes]] = OrderedDict()
        self.refresh()

    @classmethod
    def for_tree(cls, root: Path) -> SymbolIndex:
        """Return the process-wide index of ``root``, refreshed; build it on first use."""
        key = Path(root).resolve()
        with _trees_lock:
            index = _trees.get(key)
            if index is not None:
                _trees.move_to_end(key)
        if index is not None:
            index.refresh()
            return index
        index = cls(key)
        with _trees_lock:
            index = _trees.setdefault(key, index)
            _trees.move_to_end(key)
            while len(_trees) > TREE_CACHE_SIZE:
                _trees.popitem(last=False)
        return index

    @property
    def root(self) -> Path:
        return self._root

    @property
    def files(self) -> list[str]:
        """Indexed files (relative POSIX paths), sorted."""
        with self._lock:
            if self._sorted is None:
                self._sorted = sorted(self._entries)
            return list(self._sorted)

    def refresh(self) -> int:
        """Bring the index up to date with the tree; return how many files got new symbols.

        Counted: new files and files whose content digest changed (their symbols are parsed, or taken
        from the shared content cache when that content was already parsed elsewhere).  Unchanged files,
        touched-but-identical files and deleted files (which are dropped) are not counted.  The cyclic
        garbage collector is paused while more than ``_GC_PAUSE_FILES`` files are loaded (the symbols are
        acyclic; collections over a growing heap of them cost 5-10% of a cold build).
        """
        with self._lock:
            entries, pending = self._scan()
            pause = len(pending) > _GC_PAUSE_FILES and gc.isenabled()
            if pause:
                gc.disable()
            try:
                changed = self._load(entries, pending)
            finally:
                if pause:
                    gc.enable()
            if entries.keys() != self._entries.keys():
                self._sorted = None
            self._entries = entries
            return changed

    def _load(self, entries: dict[str, _Entry], pending: list[_Pending]) -> int:
        """Read, hash and (if the content is new) parse the pending files into ``entries``."""
        changed = 0
        for rel, path, size, mtime_ns, old in pending:
            data = read_source(path)
            if data is None:
                continue
            racy = mtime_ns >= time.time_ns() - _RACY_NS
            digest = blake2b(data, digest_size=16).digest()
            if old is not None and old.digest == digest:
                entries[rel] = _Entry(size, mtime_ns, digest, racy, old.symbols)
                continue
            language = language_for(rel)
            if language is None:
                continue
            try:
                symbols = symbols_for_content(data, language, rel, digest)
            except Exception:  # one pathological file must not take the whole index down
                _log.warning("cannot extract symbols from %s", path, exc_info=True)
                continue
            entries[rel] = _Entry(size, mtime_ns, digest, racy, symbols)
            changed += 1
        return changed

    def _scan(self) -> tuple[dict[str, _Entry], list[_Pending]]:
        """One stat pass: keep entries whose (size, mtime_ns) is unchanged, list the others as pending.

        Directories whose mtime is unchanged (and was not racy) are not listed again.  This loop runs once
        per candidate file on every refresh, so it avoids any per-file work beyond lstat and a comparison.
        """
        old_entries = self._entries
        kept: dict[str, _Entry] = {}
        pending: list[_Pending] = []
        listings: dict[str, _Listing] = {}
        old_listings = self._listings
        lstat, s_isdir, s_isreg = os.lstat, stat.S_ISDIR, stat.S_ISREG
        stack: Paths = [("", self._base)]
        while stack:
            rel_dir, path = stack.pop()
            try:
                st = lstat(path)
            except OSError:
                continue
            if not s_isdir(st.st_mode):
                continue
            listing = old_listings.get(rel_dir)
            if listing is None or listing.racy or listing.mtime_ns != st.st_mtime_ns:
                listed = list_source_dir(rel_dir, path)
                if listed is None:
                    continue
                subdirs, files = listed  # stored as tuples: immutable, and dropped by the cyclic GC once seen
                racy = st.st_mtime_ns >= time.time_ns() - _RACY_NS
                listing = _Listing(st.st_mtime_ns, racy, tuple(subdirs), tuple(files))
            listings[rel_dir] = listing
            for rel, file_path in listing.files:
                try:
                    fst = lstat(file_path)
                except OSError:
                    continue
                if not s_isreg(fst.st_mode) or fst.st_size > MAX_FILE_BYTES:
                    continue
                old = old_entries.get(rel)
                mtime_ns = fst.st_mtime_ns
                if old is not None and old.mtime_ns == mtime_ns and old.size == fst.st_size and not old.racy:
                    kept[rel] = old
                else:
                    pending.append((rel, file_path, fst.st_size, mtime_ns, old))
            stack.extend(listing.subdirs)
        self._listings = listings
        return kept, pending

    def _text(self, rel: str, entry: _Entry, line: int) -> str:
        key = (rel, entry.digest)
        lines = self._lines.get(key)
        if lines is None:
            data = read_source(f"{self._base}/{rel}")
            lines = data.split(b"\n") if data is not None else []
            self._lines[key] = lines
            while len(self._lines) > _LINE_CACHE_SIZE:
                self._lines.popitem(last=False)
        else:
            self._lines.move_to_end(key)
        if 0 < line <= len(lines):
            return lines[line - 1].decode("utf-8", "replace").strip()[:200]
        return ""

    def lookup(self, name: str, kind: str = "any") -> list[SymbolHit]:
        """Hits for ``name`` (``kind``: "definition", "reference" or "any"), sorted by (file, line, kind)."""
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, not {kind!r}")
        hits: list[SymbolHit] = []
        with self._lock:
            matches = []
            for rel, entry in self._entries.items():
                symbols = entry.symbols
                if name in symbols.refs or name in symbols.definitions or name in symbols.types:
                    matches.append((rel, entry))
            matches.sort(key=lambda match: match[0])
            for rel, entry in matches:
                for line, hit_kind, detail in entry.symbols.hits(name, kind):
                    hits.append(SymbolHit(rel, line, hit_kind, detail, name, self._text(rel, entry, line)))
        return hits

    def definitions(self, file: str) -> list[SymbolHit]:
        """Every definition in ``file`` (relative POSIX path), sorted by line; [] if not indexed."""
        with self._lock:
            entry = self._entries.get(file)
            if entry is None:
                return []
            return [
                SymbolHit(file, line, "definition", detail, name, self._text(file, entry, line))
                for line, detail, name in entry.symbols.definition_list()
            ]

    def imports(self, file: str) -> list[str]:
        """Module specifiers imported by ``file``, in source order, deduplicated; [] if not indexed.

        Python: dotted names as written; relative ones are resolved against the file's package, which
        is its directory relative to the tree root (after the last ``site-packages`` and without a
        leading ``src``), e.g. ``from ..b import c`` in ``src/pkg/a/m.py`` gives ``pkg.b``; a relative
        import that climbs above the root stays as written.  JS/TS: specifiers as written, from
        ``import``/``export ... from``, ``import()`` and ``require()`` with a string literal.
        """
        with self._lock:
            entry = self._entries.get(file)
        if entry is None:
            return []
        specs = entry.symbols.imports
        if entry.symbols.language != "python":
            return list(specs)
        return list(dict.fromkeys(resolve_python_import(spec, file) for spec in specs))
