"""A symbol index over a directory tree, refreshed incrementally.

* What is indexed, and how a refresh finds what changed (a stat walk, or only the paths the caller
  names): :mod:`showcause.symbols.walk`.  Files that must be read are read, hashed (blake2b) and extracted
  only when their digest is new to this index and to the process-wide content cache
  (:mod:`showcause.symbols.cache`); large loads are shared with worker processes
  (:mod:`showcause.symbols.pool`).
* Definitions and imports of every file are extracted eagerly.  References are extracted at lookup time,
  only from the files whose current content holds the name's bytes (a name that occurs nowhere in a
  file cannot be referenced there), and kept per name until the index changes.  So a reference lookup
  reads the indexed files once, and ``SymbolHit.text`` is read from disk at lookup time: call
  :meth:`SymbolIndex.refresh` (or ``for_tree``) after the tree changed.
* Sharing: ``SymbolIndex.for_tree`` keeps the most recently used indexes per resolved root, and derives
  the index of one tree of a review from the other's when told where the two differ.
* Bounds: every parse has a time limit (``parse_within``); a caller's ``AnalysisBudget`` caps sizes and
  stops loads once it ran out.  What was left out is in ``unindexed``; another budget tries it again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from showcause.core.analysis_budget import AnalysisBudget

from .cache import CONTENT_CACHE_SIZE, cached_definitions, clear_content_caches, digest_of, symbols_within
from .extract import SymbolHit
from .grep import files_holding
from .languages import MAX_FILE_BYTES, SKIP_DIRS, language_for, read_source, resolve_python_import
from .pool import PARALLEL_MIN_FILES, Extractor, extraction_plan
from .walk import Entry, Listing, Pending, check_paths, gc_paused, is_racy, root_identity, scan_paths, scan_tree

__all__ = ["CONTENT_CACHE_SIZE", "MAX_FILE_BYTES", "SKIP_DIRS", "SymbolIndex", "clear_caches"]

TREE_CACHE_SIZE = 16
_LINE_CACHE_SIZE = 64
_NAME_CACHE_SIZE = 256
_GC_PAUSE_FILES = 500
_KINDS = ("definition", "reference", "any")

_Row = tuple[str, int, str, str]  # file, line, kind, detail
_trees: OrderedDict[Path, SymbolIndex] = OrderedDict()
_trees_lock = threading.Lock()


def clear_caches() -> None:
    """Forget every cached extraction result and index (for tests and cold-cache benchmarks)."""
    clear_content_caches()
    with _trees_lock:
        _trees.clear()


def _cached_index(root: Path) -> SymbolIndex | None:
    with _trees_lock:
        index = _trees.get(root)
        if index is not None:
            _trees.move_to_end(root)
        return index


def _needle(name: str) -> bytes | None:
    """The bytes every file holding ``name`` holds (None: no file can).  Names are decoded from UTF-8,
    undecodable bytes becoming U+FFFD, so a name without U+FFFD is in a file exactly where its UTF-8
    bytes are, and a name that cannot be encoded is in none."""
    if "\ufffd" in name:
        return b""
    try:
        return name.encode("utf-8")
    except UnicodeEncodeError:
        return None


class SymbolIndex:
    """Definitions, references and imports of every supported source file under ``root``."""

    def __init__(self, root: Path, *, workers: int | None = None, worker_min_files: int = PARALLEL_MIN_FILES,
                 budget: AnalysisBudget | None = None) -> None:
        """Index ``root`` (resolved) right away; prefer :meth:`for_tree`, which shares indexes.

        ``workers``: processes that extract, this one included.  None (automatic): up to as many as there
        are usable cores, at most ``MAX_AUTO_WORKERS``, the others starting once ``worker_min_files``
        files of a load were extracted here and only on cores that were idle meanwhile (see
        :class:`~showcause.symbols.pool.Extractor`; ``worker_min_files`` 0: at least one worker, at
        once, on any host); 1: this process only; n > 1: n, starting at once.
        ``budget``: see the module docstring.
        """
        self._setup(root, workers, worker_min_files)
        self.refresh(budget=budget)

    def _setup(self, root: Path, workers: int | None, worker_min_files: int = PARALLEL_MIN_FILES) -> None:
        self._root = Path(root).resolve()
        if not self._root.is_dir():
            raise NotADirectoryError(str(root))
        self._base = str(self._root)
        self._workers = workers
        self._worker_min_files = worker_min_files
        self._lock = threading.RLock()
        self._entries: dict[str, Entry] = {}
        self._listings: dict[str, Listing] = {}
        self._sorted: list[str] | None = None
        self._lines: OrderedDict[tuple[str, bytes], list[bytes]] = OrderedDict()
        self._names: OrderedDict[str, list[_Row]] = OrderedDict()
        self._frozen: tuple[int, int, int] | None = None  # root's identity when a caller vouched for it
        self._unindexed: dict[str, str] = {}  # files a load left out, and why
        self._unindexed_by: AnalysisBudget | None = None  # the budget they were left out under

    @classmethod
    def derive(
        cls,
        base: SymbolIndex,
        root: Path,
        changed: Iterable[str],
        *,
        workers: int | None = None,
        worker_min_files: int = PARALLEL_MIN_FILES,
        budget: AnalysisBudget | None = None,
    ) -> SymbolIndex:
        """The index of ``root``, a tree equal to ``base``'s tree (as ``base`` last saw it) except at the
        ``changed`` paths (relative POSIX: added, modified or deleted files, or directories), built without
        walking ``root``: ``base``'s entries plus ``refresh(changed)``.  ``base`` is not modified.

        Raises ValueError for a path that cannot name a path below the root (see ``walk.check_paths``).
        """
        rels = check_paths(changed)
        if rels is None:
            raise ValueError("changed paths must be relative paths inside the tree")
        index = cls.__new__(cls)
        index._setup(root, workers, worker_min_files)
        with base._lock:
            index._entries = dict(base._entries)
            index._sorted = base._sorted
            index._unindexed, index._unindexed_by = dict(base._unindexed), base._unindexed_by
        index._refresh_paths(rels, budget)
        return index

    @classmethod
    def for_tree(
        cls,
        root: Path,
        *,
        sibling: Path | None = None,
        changed: Iterable[str] | None = None,
        worker_min_files: int = PARALLEL_MIN_FILES,
        budget: AnalysisBudget | None = None,
    ) -> SymbolIndex:
        """Return the process-wide index of ``root``, refreshed (by a walk); build it on first use.

        ``worker_min_files``: see the constructor (the sandbox policy's ``symbol_worker_min_files``); the
        latest caller's value applies to later loads of a shared index.

        ``sibling`` and ``changed``: another tree and every path at which ``root`` differs from it, as a
        review's base and head, which do not change while they are indexed.  When ``root`` has no index
        yet and ``sibling`` has one, ``root``'s is derived from it (:meth:`derive`): only the changed
        paths of ``root`` are read.  Paths that cannot be trusted (see ``walk.check_paths``) make it build
        by a walk instead.  Given ``changed``, a cached index is also trusted without a walk as long as
        ``root`` is the same directory it was (see ``walk.root_identity``): snapshot trees never change (a load
        that left files out under another ``budget`` is refreshed)."""
        key = Path(root).resolve()
        frozen = root_identity(key) if changed is not None else None
        index = _cached_index(key)
        if index is not None:
            index._worker_min_files = worker_min_files
            retry = bool(index._unindexed) and budget is not index._unindexed_by
            if frozen is None or index._frozen != frozen or retry:
                index.refresh(budget=budget)
                index._frozen = frozen
            return index
        other = _cached_index(Path(sibling).resolve()) if sibling is not None and changed is not None else None
        rels = check_paths(changed) if other is not None and changed is not None else None
        if other is not None and rels is not None:
            index = cls.derive(other, key, rels, worker_min_files=worker_min_files, budget=budget)
        else:
            index = cls(key, worker_min_files=worker_min_files, budget=budget)
        index._frozen = frozen
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
            return list(self._sorted_keys())

    @property
    def unindexed(self) -> dict[str, str]:
        """Files of the tree the index left out (a parse that gave up, a size cap, a budget): path -> why."""
        with self._lock:
            return dict(self._unindexed)

    def _sorted_keys(self) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(self._entries)
        return self._sorted

    def refresh(self, changed: Iterable[str] | None = None, *, budget: AnalysisBudget | None = None) -> int:
        """Bring the index up to date with the tree; return how many files got new symbols.

        Without ``changed``, a stat walk of the whole tree finds what changed.  With ``changed`` (relative
        POSIX paths of files added, modified or deleted since the last refresh, or of directories to walk
        again), only those are looked at: the caller vouches that nothing else changed.  Raises ValueError
        for a path that cannot name a path below the root (see ``walk.check_paths``).

        Counted: new files and files whose content digest changed (their symbols are extracted, or taken
        from the shared content cache when that content was already extracted elsewhere).  Unchanged
        files, touched-but-identical files and deleted files (which are dropped) are not counted.
        ``budget``: see the module docstring.
        """
        if changed is None:
            with self._lock:
                entries, pending, self._listings = scan_tree(self._base, self._entries, self._listings)
                self._unindexed = {}  # the walk finds them again: not in entries, so pending
                return self._commit(entries, pending, budget)
        rels = check_paths(changed)
        if rels is None:
            raise ValueError("changed paths must be relative paths inside the tree")
        return self._refresh_paths(rels, budget)

    def _refresh_paths(self, rels: list[str], budget: AnalysisBudget | None) -> int:
        with self._lock:
            entries = dict(self._entries)
            listings = dict(self._listings)
            pending = scan_paths(self._base, rels, entries, self._sorted_keys(), listings)
            self._listings = listings
            self._unindexed = {k: v for k, v in self._unindexed.items()
                               if not any(not r or k == r or k.startswith(r + "/") for r in rels)}
            return self._commit(entries, pending, budget)

    def _commit(self, entries: dict[str, Entry], pending: list[Pending], budget: AnalysisBudget | None) -> int:
        """Load ``pending`` into ``entries`` and make them the index."""
        with gc_paused(len(pending) > _GC_PAUSE_FILES):
            changed = self._load(entries, pending, budget)
        if self._unindexed:
            self._unindexed_by = budget
        same_files = entries.keys() == self._entries.keys()
        if not same_files:
            self._sorted = None
        if changed or not same_files:
            self._names.clear()
        self._entries = entries
        return changed

    def _load(self, entries: dict[str, Entry], pending: list[Pending], budget: AnalysisBudget | None) -> int:
        """Read and hash the pending files into ``entries``, extracting those whose content is new."""
        changed = 0
        workers, min_parallel, adaptive = extraction_plan(self._workers, self._worker_min_files)
        extractor: Extractor[tuple[str, int, int, bool, bytes]] = Extractor(
            workers, min_parallel, adaptive=adaptive, budget=budget
        )
        for rel, path, size, mtime_ns, old in pending:
            if budget is not None and (budget.expired() or size > budget.max_bytes):
                self._unindexed[rel] = budget.budget_reason if budget.expired() else budget.size_reason
                continue
            data = read_source(path)
            if data is None:
                continue
            racy = is_racy(mtime_ns)
            digest = digest_of(data)
            if old is not None and old.digest == digest:
                entries[rel] = Entry(size, mtime_ns, digest, racy, old.symbols)
                continue
            language = language_for(rel)
            if language is None:
                continue
            found = cached_definitions(language, digest)
            if found is not None:
                entries[rel] = Entry(size, mtime_ns, digest, racy, found)
                changed += 1
            else:
                extractor.add((rel, size, mtime_ns, racy, digest), path, language, digest, data, rel)
        for (rel, size, mtime_ns, racy, read_digest), digest, found in extractor.results():
            if isinstance(found, str):
                self._unindexed[rel] = found
            elif found is not None:  # changed while being read: its stat may be stale, so re-check it next time
                entries[rel] = Entry(size, mtime_ns, digest, racy or digest != read_digest, found)
                changed += 1
        return changed

    def _text(self, rel: str, digest: bytes, line: int) -> str:
        key = (rel, digest)
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

    def lookup(self, name: str, kind: str = "any", budget: AnalysisBudget | None = None) -> list[SymbolHit]:
        """Hits for ``name`` (``kind``: "definition", "reference" or "any"), sorted by (file, line, kind).
        ``budget``: files holding the name whose references were left out (see ``symbols_within``) go there."""
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, not {kind!r}")
        with self._lock:
            if kind == "definition":
                rows = self._definition_rows(name)
            else:
                rows = [row for row in self._name_rows(name, budget) if kind == "any" or row[2] == kind]
            entries = self._entries
            return [
                SymbolHit(rel, line, hit_kind, detail, name, self._text(rel, entries[rel].digest, line))
                for rel, line, hit_kind, detail in rows
                if rel in entries
            ]

    def _definition_rows(self, name: str) -> list[_Row]:
        rows: list[_Row] = []
        for rel in self._sorted_keys():
            symbols = self._entries[rel].symbols
            if name in symbols.definitions:
                rows.extend((rel, line, kind, detail) for line, kind, detail in symbols.hits(name))
        return rows

    def _name_rows(self, name: str, budget: AnalysisBudget | None) -> list[_Row]:
        """Definitions and references of ``name``, from the files whose current content holds its bytes."""
        rows = self._names.get(name)
        if rows is not None:
            self._names.move_to_end(name)
            return rows
        rows = []
        needle = _needle(name)
        holders = files_holding(self._base, self._sorted_keys(), needle) if needle is not None else []
        complete = True
        with gc_paused(len(holders) > _GC_PAUSE_FILES):
            for rel in holders:
                data = read_source(f"{self._base}/{rel}")
                if data is None or needle is None or needle not in data:  # changed since it was searched
                    continue
                symbols = symbols_within(data, self._entries[rel].symbols.language, rel, budget)
                if symbols is None:
                    complete = False
                    continue
                rows.extend((rel, line, kind, detail) for line, kind, detail in symbols.hits(name))
        if budget is not None and needle and self._unindexed:  # files a load left out may hold references
            for rel in files_holding(self._base, sorted(self._unindexed), needle):
                budget.skip(rel, self._unindexed[rel])
        if complete:  # kept for the next lookup only when no file was left out
            self._names[name] = rows
            while len(self._names) > _NAME_CACHE_SIZE:
                self._names.popitem(last=False)
        return rows

    def definitions(self, file: str) -> list[SymbolHit]:
        """Every definition in ``file`` (relative POSIX path), sorted by line; [] if not indexed."""
        with self._lock:
            entry = self._entries.get(file)
            if entry is None:
                return []
            return [
                SymbolHit(file, line, "definition", detail, name, self._text(file, entry.digest, line))
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
