"""Changes from the project's own history: its previous release made the base of the current one (a real
upstream change), and the current release with its source files taken back to the previous one's while its
tests stay (the fixes of the release reverted, their tests kept: whatever they now catch is a regression).

The previous release is committed beside the base (`oracle-prev`, a root commit of its own); both changes are
commits whose trees git builds from the two releases' trees, nothing of either project runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .projects import _GIT, BASE, Project, add_files, git, mirror, source_tree

__all__ = ["PREVIOUS", "commit_previous", "fix_changes", "release_changes"]

PREVIOUS = "oracle-prev"


def _has(repo: Path, ref: str) -> bool:
    return subprocess.run([*_GIT, "-C", str(repo), "rev-parse", "-q", "--verify", ref + "^{commit}"],
                          capture_output=True).returncode == 0


def commit_previous(project: Project, repo: Path, work: Path) -> None:
    """Tag the previous release's tree as `oracle-prev` (once)."""
    if not project.previous or _has(repo, PREVIOUS):
        return
    tree = source_tree(project, project.previous, work)
    if project.extra.get("files"):   # the same added files on both sides: they are no part of the change
        copy = work / "trees" / f"{project.name}-{project.previous}-with-files"
        if not copy.is_dir():
            shutil.copytree(tree, copy.with_name(copy.name + ".tmp"), symlinks=True, dirs_exist_ok=True)
            add_files(project, copy.with_name(copy.name + ".tmp"))
            os.replace(copy.with_name(copy.name + ".tmp"), copy)
        tree = copy
    with tempfile.TemporaryDirectory(prefix="oracle-index-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        base = [*_GIT, f"--git-dir={repo / '.git'}", f"--work-tree={tree}", "-C", str(tree)]
        subprocess.run([*base, "add", "-A", "-f", "."], env=env, check=True, capture_output=True)
        sha = subprocess.run([*base, "write-tree"], env=env, check=True, capture_output=True, text=True).stdout.strip()
    commit = git(repo, "commit-tree", sha, "-m", f"{project.package} {project.previous}", capture=True).strip()
    git(repo, "tag", "-f", PREVIOUS, commit)


def _sources(repo: Path, ref: str, project: Project) -> dict[str, str]:
    """The project's own source files on `ref` (its `sources` globs): path -> blob."""
    from showcause.core.globmatch import compile_glob

    globs = [g for g in (compile_glob(p) for p in project.sources) if g is not None]
    out: dict[str, str] = {}
    for row in git(repo, "ls-tree", "-r", ref, capture=True).splitlines():
        meta, path = row.split("\t", 1)
        if meta.split()[1] == "blob" and any(g.match(path) for g in globs):
            out[path] = meta.split()[2]
    return out


def _revert_tree(repo: Path, project: Project) -> str:
    """The base tree with its source files as the previous release has them (added, changed or removed)."""
    now, before = _sources(repo, BASE, project), _sources(repo, PREVIOUS, project)
    with tempfile.TemporaryDirectory(prefix="oracle-index-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}

        def run(*args: str, data: str | None = None) -> str:
            return subprocess.run([*_GIT, "-C", str(repo), *args], env=env, input=data, check=True, text=True,
                                  capture_output=True).stdout

        run("read-tree", BASE)
        gone = [p for p in now if p not in before]
        if gone:
            run("update-index", "--force-remove", "-z", "--stdin", data="\0".join(gone) + "\0")
        info = "".join(f"100644 {blob}\t{path}\n" for path, blob in before.items() if now.get(path) != blob)
        if info:
            run("update-index", "--add", "--index-info", data=info)
        return run("write-tree").strip()


def _fix_reverted(project: Project, repo: Path, work: Path, fix: str) -> str | None:
    """The base tree with the source part of the commit `fix` undone (its tests kept), or None when that
    part does not apply backwards to the base (later commits changed the same lines)."""
    history = mirror(project, work)
    files = [f for f in _sources(repo, BASE, project) if f in git(history, "show", "--name-only", "--format=",
                                                                     fix, capture=True).split()]
    if not files:
        return None
    patch = git(history, "diff", f"{fix}^", fix, "--", *files, capture=True)
    with tempfile.TemporaryDirectory(prefix="oracle-index-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        subprocess.run([*_GIT, "-C", str(repo), "read-tree", BASE], env=env, check=True)
        applied = subprocess.run([*_GIT, "-C", str(repo), "apply", "-R", "--cached"], env=env, input=patch, text=True,
                                 capture_output=True)
        if applied.returncode != 0:
            return None
        return subprocess.run([*_GIT, "-C", str(repo), "write-tree"], env=env, check=True, capture_output=True,
                              text=True).stdout.strip()


def fix_changes(project: Project, repo: Path, work: Path) -> list[tuple[str, str, str, str]]:
    """(kind, base, branch, description) of each listed fix commit reverted in its source, its tests kept."""
    out = []
    for n, fix in enumerate(project.fixes):
        tree = _fix_reverted(project, repo, work, fix)
        if tree is None:
            continue
        subject = git(mirror(project, work), "log", "-1", "--format=%s", fix, capture=True).strip()
        what = f"revert the source of {fix[:10]} ({subject[:60]}), its tests kept"
        commit = git(repo, "commit-tree", tree, "-p", BASE, "-m", what, capture=True).strip()
        git(repo, "branch", "-f", f"oracle/fix-reverted-{n}", commit)
        out.append(("fix-reverted", BASE, f"oracle/fix-reverted-{n}", what))
    return out


def release_changes(project: Project, repo: Path) -> list[tuple[str, str, str, str]]:
    """(kind, base ref, branch, description) of the upstream change and the reverted release (each only when
    it changes something)."""
    if not project.previous or not _has(repo, PREVIOUS):
        return []
    out = []
    head_tree = git(repo, "rev-parse", f"{BASE}^{{tree}}", capture=True).strip()
    if head_tree != git(repo, "rev-parse", f"{PREVIOUS}^{{tree}}", capture=True).strip():
        what = f"upstream {project.previous} -> {project.version}"
        commit = git(repo, "commit-tree", head_tree, "-p", PREVIOUS, "-m", what, capture=True).strip()
        git(repo, "branch", "-f", "oracle/upstream", commit)
        out.append(("upstream", PREVIOUS, "oracle/upstream", what))
    reverted = _revert_tree(repo, project)
    if reverted != head_tree:
        what = f"{project.version} with the source of {project.previous} (tests kept)"
        commit = git(repo, "commit-tree", reverted, "-p", BASE, "-m", what, capture=True).strip()
        git(repo, "branch", "-f", "oracle/revert", commit)
        out.append(("revert", BASE, "oracle/revert", what))
    return out
