"""The project's installed `node_modules`, bound read-only into every copy a review runs (both trees alike).

Snapshots never hold `node_modules` (it is untracked or ignored), so without these binds a JavaScript
project's runner and dependencies are missing in the sandbox. `node_mounts` finds every `node_modules`
directory of the repository (the root's and each workspace package's, never one nested in another) by a
bounded walk of directory entries: nothing on the host is executed, imported or followed through a link.

Workspace links (npm, yarn and pnpm link `node_modules/@scope/pkg -> ../../packages/pkg`) must lead into the
reviewed copy, never into the user's working tree. A relative link inside a bound directory resolves where
the bind lands, so it already does under bubblewrap and unshare; at isolation ``none`` the bind is a link
and would resolve on the host. So a `node_modules` holding a link that leaves it is bound entry by entry:
its directories and files read-only, its links made afresh inside the copy (relative ones as they are,
absolute ones into the repository rewritten relative), at every level alike.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from showcause.sandbox.mounts import Mount

__all__ = ["MAX_DEPTH", "MAX_DIRS", "host_path", "node_modules_dirs", "node_mounts"]

MAX_DEPTH = 6        # directory levels below the repository searched for node_modules
MAX_DIRS = 5000      # directories visited at most
_SKIP = {".git", ".hg", ".svn"}


def _lmode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None


def _is_dir(path: Path) -> bool:
    mode = _lmode(path)
    return mode is not None and stat.S_ISDIR(mode)


def node_modules_dirs(source: Path, trees: Sequence[Path] = ()) -> list[str]:
    """Relative paths of the `node_modules` directories of `source` ("node_modules", "packages/a/node_modules").

    Only directories the reviewed trees hold are entered (when trees are given), links are never
    followed, and the walk stops at `MAX_DEPTH` levels and `MAX_DIRS` directories."""
    found: list[str] = []
    queue: list[tuple[str, int]] = [("", 0)]
    visited = 0
    while queue and visited < MAX_DIRS:
        rel, depth = queue.pop(0)
        visited += 1
        try:
            names = sorted(os.listdir(source / rel) if rel else os.listdir(source))
        except OSError:
            continue
        for name in names:
            child = f"{rel}/{name}" if rel else name
            if name in _SKIP or not _is_dir(source / child):
                continue
            if name == "node_modules":
                found.append(child)
            elif depth + 1 < MAX_DEPTH and (not trees or any(_is_dir(t / child) for t in trees)):
                queue.append((child, depth + 1))
    return sorted(found)


def _leaves(top: Path, link: Path) -> bool:
    """Whether the link `link` points outside the directory `top` (read lexically, never followed)."""
    target = os.readlink(link)
    resolved = os.path.normpath(target if os.path.isabs(target) else os.path.join(link.parent, target))
    return not (resolved + "/").startswith(str(top) + "/")


def _link_target(link: Path, source: Path) -> str:
    """The target a link gets inside the copy: relative as it is; absolute into the repository, relative."""
    target = os.readlink(link)
    if not os.path.isabs(target):
        return target
    normal = os.path.normpath(target)
    if (normal + "/").startswith(str(source) + "/"):
        return os.path.relpath(normal, link.parent)
    return target


def _entries(directory: Path) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def _links_leave(directory: Path, top: Path) -> bool:
    """Whether a link directly in `directory` points outside `top`."""
    for name in _entries(directory):
        mode = _lmode(directory / name)
        if mode is not None and stat.S_ISLNK(mode) and _leaves(top, directory / name):
            return True
    return False


def _is_scope(path: Path) -> bool:
    return path.name.startswith("@") and _is_dir(path)


def _needs_entries(top: Path) -> bool:
    """Whether a link in `top` or in one of its `@scope` directories leaves it."""
    return _links_leave(top, top) or any(_links_leave(top / n, top) for n in _entries(top) if _is_scope(top / n))


def _entry_mounts(src: Path, dst: str, top: Path, source: Path, depth: int = 0) -> list[Mount]:
    """One step per entry of `src` (bound at `dst`): links made afresh, a `@scope` directory holding links
    that leave `top` entered in turn, everything else bound read-only."""
    out = [Mount("dir", dst)]
    for name in _entries(src):
        path, target = src / name, f"{dst}/{name}"
        mode = _lmode(path)
        if mode is None:
            continue
        if stat.S_ISLNK(mode):
            out.append(Mount("symlink", target, _link_target(path, source)))
        elif depth == 0 and _is_scope(path) and _links_leave(path, top):
            out += _entry_mounts(path, target, top, source, depth + 1)
        elif stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            out.append(Mount("ro", target, str(path)))
    return out


def node_mounts(source: Path | None, trees: Sequence[Path] = ()) -> tuple[Mount, ...]:
    """The read-only binds of the repository's installed `node_modules`, each at ``{root}/<rel>``.

    ``source``: the host directory the trees were taken from (None for a case folder: nothing to bind).
    A `node_modules` that every tree already holds (committed, or copied with a plain directory) is the
    trees' own and stays as it is; one that is itself a link is not bound (it could lead anywhere)."""
    if source is None or not _is_dir(source):
        return ()
    source = Path(os.path.realpath(source))
    mounts: list[Mount] = []
    for rel in node_modules_dirs(source, trees):
        if trees and all(os.path.lexists(t / rel) for t in trees):
            continue
        path = source / rel
        if _needs_entries(path):
            mounts += _entry_mounts(path, f"{{root}}/{rel}", path, source)
        else:
            mounts.append(Mount("ro", f"{{root}}/{rel}", str(path)))
    return tuple(mounts)


def host_path(mounts: Sequence[Mount], rel: str) -> Path | None:
    """Where the file at ``{root}/<rel>`` of a sandboxed run comes from on the host, through the read-only
    binds of `mounts` (the innermost bind holding it); None when no bind covers it."""
    best: tuple[int, Path] | None = None
    for m in mounts:
        if m.op != "ro" or not m.dst.startswith("{root}/"):
            continue
        inner = m.dst.removeprefix("{root}/")
        if rel == inner or rel.startswith(inner + "/"):
            rest = rel[len(inner):].lstrip("/")
            if best is None or len(inner) > best[0]:
                best = (len(inner), Path(m.src) / rest if rest else Path(m.src))
    return best[1] if best else None
