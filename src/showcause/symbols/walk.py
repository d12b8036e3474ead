"""Which files of a tree need reading: a stat walk of the whole tree, or a look at a few given paths.

* Walk: ``os.scandir``; symlinked files and directories are skipped entirely (never followed); directories
  in ``SKIP_DIRS`` are skipped; so are files over 1 MiB.  A directory whose mtime is unchanged (and was not
  racy when listed) is not listed again: adding, removing or renaming an entry changes its directory's
  mtime.  Modifying a file does not, so every candidate file is ``lstat``-ed on every walk, and a file
  whose ``(size, mtime_ns)`` is unchanged (and was not racy) is kept without being read.  Skipping whole
  subtrees by directory mtime would miss modified files; only change notification could avoid the stats.
* Given paths: each path (relative, POSIX) is looked at alone, without listing anything else: a file is
  always read again (its digest decides whether it is extracted again), a directory is walked as above,
  and a path that is gone, unsupported, below a symlink or in a skipped directory drops what was indexed
  at and below it.

Timestamps within 2 s of the moment they were seen are "racy" (a same-size rewrite in the same clock tick
would keep them unchanged), so such files and directories are re-checked on the next walk, as git does.
"""

from __future__ import annotations

import gc
import os
import posixpath
import stat
import time
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from .extract import FileDefinitions
from .languages import MAX_FILE_BYTES, SKIP_DIRS, Paths, language_for, list_source_dir

__all__ = ["RACY_NS", "Entry", "Listing", "Pending", "check_paths", "gc_paused", "is_racy", "root_identity",
           "scan_paths", "scan_tree"]

RACY_NS = 2_000_000_000


class Entry(NamedTuple):
    size: int
    mtime_ns: int
    digest: bytes
    racy: bool  # mtime too recent to trust: re-hash on the next walk
    symbols: FileDefinitions


class Listing(NamedTuple):
    """Cached listing of one directory: supported regular files and subdirectories."""

    mtime_ns: int
    racy: bool
    subdirs: tuple[tuple[str, str], ...]
    files: tuple[tuple[str, str], ...]


class Pending(NamedTuple):
    rel: str
    path: str
    size: int
    mtime_ns: int
    old: Entry | None


def is_racy(mtime_ns: int) -> bool:
    return mtime_ns >= time.time_ns() - RACY_NS


def check_paths(paths: Iterable[str]) -> list[str] | None:
    """Normalized relative POSIX paths, or None if one cannot name a path below the root.

    Refused: absolute paths, paths climbing out with ``..``, and paths holding U+FFFD (a name that was not
    valid UTF-8 somewhere upstream and may have lost its real bytes).  ``.`` names the root itself.
    """
    out: list[str] = []
    for raw in paths:
        if not isinstance(raw, str) or not raw or raw.startswith("/") or "\0" in raw or "\ufffd" in raw:
            return None
        rel = posixpath.normpath(raw)
        if rel == ".." or rel.startswith("../"):
            return None
        out.append("" if rel == "." else rel)
    return out


def scan_tree(
    base: str,
    old_entries: dict[str, Entry],
    old_listings: dict[str, Listing],
    start: tuple[str, str] | None = None,
) -> tuple[dict[str, Entry], list[Pending], dict[str, Listing]]:
    """One stat walk from ``start`` (the root by default): (entries kept as they are, files to read,
    listings).  This loop runs once per candidate file on every refresh, so it avoids any per-file work
    beyond lstat and a comparison."""
    kept: dict[str, Entry] = {}
    pending: list[Pending] = []
    listings: dict[str, Listing] = {}
    lstat, s_isdir, s_isreg = os.lstat, stat.S_ISDIR, stat.S_ISREG
    stack: Paths = [start or ("", base)]
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
            listing = Listing(st.st_mtime_ns, is_racy(st.st_mtime_ns), tuple(subdirs), tuple(files))
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
                pending.append(Pending(rel, file_path, fst.st_size, mtime_ns, old))
        stack.extend(listing.subdirs)
    return kept, pending, listings


def _below(keys: list[str], rel: str) -> list[str]:
    """The keys of sorted ``keys`` that are ``rel`` or lie below it (all of them for the root, "")."""
    if not rel:
        return list(keys)
    i = bisect_left(keys, rel)
    found = [rel] if i < len(keys) and keys[i] == rel else []
    prefix = rel + "/"
    i = bisect_left(keys, prefix, i)
    while i < len(keys) and keys[i].startswith(prefix):
        found.append(keys[i])
        i += 1
    return found


def _reachable(base: str, rel: str, seen: dict[str, bool]) -> bool:
    """Whether every directory above ``rel`` is a real directory (no symlink) outside SKIP_DIRS."""
    parts = rel.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        rel_dir = "/".join(parts[:depth])
        ok = seen.get(rel_dir)
        if ok is None:
            try:
                ok = parts[depth - 1] not in SKIP_DIRS and stat.S_ISDIR(os.lstat(f"{base}/{rel_dir}").st_mode)
            except OSError:
                ok = False
            seen[rel_dir] = ok
        if not ok:
            return False
    return True


def scan_paths(
    base: str,
    rels: list[str],
    entries: dict[str, Entry],
    sorted_keys: list[str],
    listings: dict[str, Listing],
) -> list[Pending]:
    """Look at ``rels`` only: drop what ``entries`` and ``listings`` (both updated in place) hold at and
    below each of them, keep again what a walk of a directory among them finds unchanged, and return the
    files to read.  ``sorted_keys``: the keys of ``entries``, sorted."""
    pending: dict[str, Pending] = {}
    walked: list[str] = []  # directories walked so far: what they found may be named again below them
    seen: dict[str, bool] = {}
    listed = sorted(listings)
    for rel in sorted(set(rels)):  # a directory before what lies below it
        olds = {key: entries.pop(key) for key in _below(sorted_keys, rel) if key in entries}
        if any(not done or rel.startswith(done + "/") for done in walked):
            for key in _below(sorted(pending), rel):
                old = pending.pop(key).old
                if old is not None:
                    olds[key] = old
        # Stale now: the next walk lists the parent (and anything that was a directory here) again.
        for key in [posixpath.dirname(rel), *_below(listed, rel)] if rel else listed:
            listings.pop(key, None)
        if rel and not _reachable(base, rel, seen):
            continue
        path = f"{base}/{rel}" if rel else base
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            if posixpath.basename(rel) not in SKIP_DIRS:
                kept, found, fresh = scan_tree(base, olds, {}, (rel, path))
                walked.append(rel)
                entries.update(kept)
                listings.update(fresh)
                pending.update((item.rel, item) for item in found)
        elif stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE_BYTES and language_for(rel) is not None:
            pending[rel] = Pending(rel, path, st.st_size, st.st_mtime_ns, olds.get(rel))
    return list(pending.values())


@contextmanager
def gc_paused(pause: bool) -> Iterator[None]:
    """Pause the cyclic garbage collector while many files are extracted: the results are acyclic, and
    collections over a growing heap of them cost 5-10% of a cold build."""
    pause = pause and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.enable()


def root_identity(root: Path) -> tuple[int, int, int] | None:
    """Device, inode and ctime of ``root``: a tree deleted and made again at the same path differs."""
    try:
        st = os.lstat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_ctime_ns)
