"""A review's two trees (base, head) and the real diff between them.

Trees are materialized in a private temporary directory; the user's tree is never written to.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from showcause.core.errors import InputError, ToolArgumentError
from showcause.sandbox.lifecycle import forget_dir, track_dir
from showcause.sandbox.paths import normalize_relpath as _normalize
from showcause.snapshot.case import CaseInput, Release, load_case_input
from showcause.snapshot.diff import Diff, diff_trees
from showcause.snapshot.gitcmd import git, git_bytes
from showcause.snapshot.gitplaces import work_tree
from showcause.snapshot.release import release_tree

__all__ = ["ENVIRONMENT_DIRS", "Snapshot", "from_case", "from_dir", "from_git"]

_SKIP = {".git"}


@dataclass
class Snapshot:
    base: Path
    head: Path
    diff: Diff
    label: str
    case: CaseInput | None = None
    # The host directory both trees were taken from (`--repo`), where the project's environment (its
    # virtualenv, its installed node_modules) lives; None for a case folder.
    source: Path | None = None
    _tmp: Path | None = field(default=None, repr=False)

    def close(self) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            forget_dir(self._tmp)
            self._tmp = None

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def tree(self, side: str) -> Path:
        return self.head if side == "head" else self.base


def _new_tmp() -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="showcause-snap-"))
    track_dir(tmp)   # removed even when a signal ends the run
    return tmp


def _skipped(directory: str, names: list[str]) -> list[str]:
    """`.git`, and anything that is not a regular file, directory or symlink (a FIFO would hang the copy)."""
    out = []
    for name in names:
        try:
            mode = os.lstat(os.path.join(directory, name)).st_mode
        except OSError:
            out.append(name)
            continue
        if name in _SKIP or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            out.append(name)
    return out


def _unsafe_parent(root: Path, rel: str) -> bool:
    """Whether any directory between `root` and `root/rel` is a symlink (or not a directory)."""
    current = root
    for part in Path(rel).parts[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return False
        if not stat.S_ISDIR(mode):
            return True
    return False


def _create(root: Path, rel: str) -> Path:
    """The path to write `rel` at inside `root`, never through a symlink and never twice.

    Paths come from git trees or working trees under review: a crafted tree can hold `..` entries, a
    symlink and a directory of one name, or duplicate paths. Each is refused.
    """
    try:
        clean = _normalize(rel)
    except ToolArgumentError:
        clean = None
    if clean != rel:
        raise InputError(f"unsafe path in the tree: {rel!r}")
    if _unsafe_parent(root, rel):
        raise InputError(f"unsafe path in the tree: {rel!r} lies below a symlink")
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(target):
        raise InputError(f"unsafe path in the tree: {rel!r} appears twice")
    return target


def _write_new(target: Path, body: bytes, mode: int = 0o644) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(body)


def _copy_tree(src: Path, dst: Path, only: list[str] | None = None) -> None:
    """Copy a directory (symlinks as symlinks, never followed; `.git` and special files skipped)."""
    if src.is_symlink():
        raise InputError(f"{src} is a symlink; give the real directory")
    if only is None:
        shutil.copytree(src, dst, symlinks=True, ignore=_skipped)
        return
    dst.mkdir(parents=True, exist_ok=True)
    for rel in only:
        source = src / rel
        # A tracked path whose directory was swapped for a symlink would copy files from outside.
        if _SKIP.intersection(Path(rel).parts) or _unsafe_parent(src, rel) or not os.path.lexists(source):
            continue
        mode = source.lstat().st_mode
        if stat.S_ISLNK(mode):
            os.symlink(os.readlink(source), _create(dst, rel))
        elif stat.S_ISREG(mode):
            shutil.copy2(source, _create(dst, rel))


def _finish(tmp: Path, label: str, case: CaseInput | None = None, source: Path | None = None) -> Snapshot:
    return Snapshot(base=tmp / "base", head=tmp / "head", diff=diff_trees(tmp), label=label, case=case,
                    source=source.resolve() if source is not None else None, _tmp=tmp)


def _apply_patch(tree: Path, patch: Path) -> None:
    try:
        data = patch.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read patch {patch}: {exc}") from exc
    text = data.decode("utf-8", "replace")
    if not text.strip():
        raise InputError(f"patch {patch} is empty")
    has_hunks = any(line.startswith("@@ ") for line in text.splitlines())
    if not has_hunks and ("GIT binary patch" in text or "Binary files " in text):
        raise InputError(f"patch {patch} is binary-only: showcause reviews text changes")
    for args in (["apply", "--check"], ["apply"]):
        proc = git([*args, "--whitespace=nowarn", "-"], cwd=tree, check=False, stdin=text)
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise InputError(f"patch {patch} does not apply: {'; '.join(detail[:4]) or 'git apply failed'}")


def _safe_rel(raw: str, what: str) -> str:
    try:
        return _normalize(raw)
    except ToolArgumentError as exc:
        raise InputError(f"unsafe {what} {raw!r}: {exc}") from exc


def _overlay(head_release: Path, head: Path, raw: str) -> None:
    """Make `head/raw` what `head_release` has there (removed when it has nothing)."""
    rel = _safe_rel(raw, "head path")
    if _unsafe_parent(head, rel) or _unsafe_parent(head_release, rel):
        raise InputError(f"unsafe head path {raw!r}")
    target, source = head / rel, head_release / rel
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif os.path.lexists(target):
        target.unlink()
    if source.is_dir() and not source.is_symlink():
        _copy_tree(source, target)
    elif source.is_file() and not source.is_symlink():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _release_trees(release: Release, tmp: Path) -> None:
    """For each package (at its `dir`): base = its base release; head = base with `head_paths` as its head
    release has them (absent there: removed), or the whole head release."""
    for side in ("base", "head"):
        (tmp / side).mkdir(parents=True, exist_ok=True)
    for part in release.parts:
        at = _safe_rel(part.dir, "package dir") if part.dir else ""
        base = release_tree(release.registry, part.package, part.base)
        head = release_tree(release.registry, part.package, part.head)
        base_dst, head_dst = (tmp / side / at if at else tmp / side for side in ("base", "head"))
        for dst in (base_dst, head_dst):
            if at and (_unsafe_parent(tmp, f"{dst.relative_to(tmp)}/x") or os.path.lexists(dst)):
                raise InputError(f"unsafe package dir {part.dir!r}")
            if not at:
                dst.rmdir()   # the root part: copytree wants to create it
        _copy_tree(base, base_dst)
        if not part.head_paths:
            _copy_tree(head, head_dst)
            continue
        _copy_tree(base_dst, head_dst)
        for raw in part.head_paths:
            _overlay(head, head_dst, raw)


def from_case(case_dir: Path) -> Snapshot:
    """base = CASE/base, head = base + CASE/patch.diff; or, for a real-world case, both trees from
    published releases (`Release`, prepared in the cache). case.json's ground truth is not read."""
    case_dir = Path(case_dir)
    case = load_case_input(case_dir) if (case_dir / "case.json").is_file() else None
    if case is not None and case.release is not None:   # a real-world case: no base/ or patch.diff
        tmp = _new_tmp()
        try:
            _release_trees(case.release, tmp)
            return _finish(tmp, f"case {case.id}", case)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    if not (case_dir / "base").is_dir():
        raise InputError(f"{case_dir}: not a repo case (no base/ directory)")
    if not (case_dir / "patch.diff").is_file():
        raise InputError(f"{case_dir}: not a repo case (no patch.diff)")
    case = case or load_case_input(case_dir)
    tmp = _new_tmp()
    try:
        _copy_tree(case_dir / "base", tmp / "base")
        _copy_tree(tmp / "base", tmp / "head")
        _apply_patch(tmp / "head", (case_dir / "patch.diff").resolve())
        return _finish(tmp, f"case {case.id}", case)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _resolve_ref(repo: Path, ref: str) -> str:
    if not ref or ref.startswith("-"):
        raise InputError(f"invalid git ref {ref!r}")
    proc = git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], cwd=repo,
               check=False, discover=True)
    if proc.returncode != 0:
        raise InputError(f"unknown git ref {ref!r} in {repo}")
    return proc.stdout.strip()


def _export_commit(repo: Path, sha: str, dst: Path) -> None:
    """Write the tree of `sha` from git objects (no checkout; export-ignore attributes do not apply)."""
    listing = git_bytes(["ls-tree", "-r", "-z", "--full-tree", sha], cwd=repo)
    if listing.returncode != 0:
        raise InputError(f"cannot list tree of {sha}: {listing.stderr.decode(errors='replace').strip()}")
    entries: list[tuple[str, str, str]] = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, path = record.split(b"\t", 1)
        mode, kind, obj = meta.decode().split()
        if kind == "blob":
            entries.append((mode, obj, path.decode("utf-8", "surrogateescape")))
    dst.mkdir(parents=True, exist_ok=True)
    if not entries:
        return
    batch = git_bytes(["cat-file", "--batch"], cwd=repo, stdin=b"".join(e[1].encode() + b"\n" for e in entries))
    data, pos = batch.stdout, 0
    for mode, _obj, rel in entries:
        header_end = data.index(b"\n", pos)
        size = int(data[pos:header_end].split()[2])
        body = data[header_end + 1: header_end + 1 + size]
        pos = header_end + 1 + size + 1
        if _SKIP.intersection(Path(rel).parts):
            continue
        target = _create(dst, rel)
        if mode == "120000":
            os.symlink(body.decode("utf-8", "surrogateescape"), target)
        else:
            _write_new(target, body, 0o755 if mode == "100755" else 0o644)


def from_git(repo: Path, base_ref: str, head_ref: str) -> Snapshot:
    """Both trees from git objects; the working tree is neither read nor touched."""
    repo = Path(repo)
    top = work_tree(repo)
    if top is None:
        raise InputError(f"{repo}: not a git repository")
    base_sha, head_sha = _resolve_ref(top, base_ref), _resolve_ref(top, head_ref)
    tmp = _new_tmp()
    try:
        _export_commit(top, base_sha, tmp / "base")
        _export_commit(top, head_sha, tmp / "head")
        return _finish(tmp, f"{base_ref}..{head_ref}", source=top)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


# Environment directories: installed, built or cached, never the change, whether or not .gitignore names them.
ENVIRONMENT_DIRS = frozenset({".venv", "venv", "node_modules", ".tox", ".nox", "__pycache__", "dist", "build",
                               ".pytest_cache", ".mypy_cache"})


def _environment(rel: str) -> bool:
    return any(part in ENVIRONMENT_DIRS or part.endswith(".egg-info") for part in rel.split("/")[:-1])


def _tracked_files(path: Path, untracked: bool = False) -> list[str]:
    """Tracked files under `path`, relative to it; with ``untracked``, also the untracked ones git does not
    ignore (ignored files are always left out), less those inside an environment directory (an untracked
    `.venv` the .gitignore forgot is not part of the change). No filter or fsmonitor runs: only the index
    and a walk."""
    tracked = git_bytes(["ls-files", "-z", "--cached", "--", "."], cwd=path).stdout
    files = {p.decode("utf-8", "surrogateescape") for p in tracked.split(b"\0") if p}
    if untracked:
        others = git_bytes(["ls-files", "-z", "--others", "--exclude-standard", "--", "."], cwd=path).stdout
        files |= {rel for p in others.split(b"\0") if p
                  if not _environment(rel := p.decode("utf-8", "surrogateescape"))}
    return sorted(files)


def _export_head(top: Path, path: Path, dst: Path, scratch: Path, ref: str | None = None) -> None:
    """`path`'s part of the commit `ref` (default HEAD: empty in a repository with no commit yet) at `dst`."""
    if ref not in (None, "HEAD"):   # HEAD itself may have no commit yet
        sha = _resolve_ref(top, ref or "HEAD")
    else:
        proc = git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd=top, check=False, discover=True)
        if proc.returncode != 0:
            dst.mkdir(parents=True)
            return
        sha = proc.stdout.strip()
    _export_commit(top, sha, scratch)
    part = scratch / path.resolve().relative_to(top.resolve())
    if part.is_dir() and not part.is_symlink():
        part.rename(dst)
    else:
        dst.mkdir(parents=True)
    shutil.rmtree(scratch, ignore_errors=True)


def from_dir(path: Path, diff_file: Path | None = None, base: str | None = None) -> Snapshot:
    """A directory, as the review of what it holds.

    With ``diff_file``: base is the working tree (tracked files only in a git repository) and head is base
    with the patch applied. Without one, in a git repository: base is the commit ``base`` (default HEAD) and
    head the working tree — committed, staged, unstaged and untracked files that are not ignored — so
    uncommitted work is what is reviewed. Elsewhere both trees are the directory (nothing to compare; the
    service says so)."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(f"{path}: no such directory")
    if diff_file is not None and not Path(diff_file).is_file():
        raise InputError(f"{diff_file}: no such patch file")
    top = work_tree(path)
    if base is not None and (top is None or diff_file is not None):
        raise InputError(f"{path}: a base ref without a head needs a git repository and no patch")
    tmp = _new_tmp()
    try:
        if top is not None and diff_file is None:
            _export_head(top, path, tmp / "base", tmp / "commit", base)
            _copy_tree(path, tmp / "head", only=_tracked_files(path, untracked=True))
            return _finish(tmp, f"{path} (uncommitted changes against {base or 'HEAD'})", source=path)
        _copy_tree(path, tmp / "base", only=_tracked_files(path) if top is not None else None)
        _copy_tree(tmp / "base", tmp / "head")
        if diff_file is not None:
            _apply_patch(tmp / "head", Path(diff_file).resolve())
        return _finish(tmp, f"{path}" + (f" + {diff_file}" if diff_file else ""), source=path)
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(f"git failed on {path}: {exc.stderr}") from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
