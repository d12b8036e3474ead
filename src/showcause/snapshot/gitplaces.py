"""Where git reads a repository from: its work tree, its git directory and the common directory of its
worktrees, as git itself resolves them (`gitdir:` files, `core.worktree`, `commondir`), not where a `.git`
entry happens to sit. A directory whose `.git` is a file naming another repository, or whose config moves the
work tree elsewhere, is reviewed from those places; so access checks are made against them.

git runs with the settings of :mod:`showcause.snapshot.gitcmd` (nothing of the repository's config runs)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from showcause.core.errors import InputError
from showcause.snapshot.gitcmd import git

__all__ = ["GitPlaces", "git_places", "work_tree"]


@dataclass(frozen=True)
class GitPlaces:
    """Real paths: the top of the work tree, the git directory and the common directory."""

    toplevel: Path
    git_dir: Path
    common_dir: Path

    def all(self) -> tuple[Path, Path, Path]:
        return self.toplevel, self.git_dir, self.common_dir


def git_places(path: Path) -> GitPlaces | None:
    """Where git reads the repository holding `path` from, or None when `path` is in no work tree (no
    repository, a bare one, or one git refuses)."""
    proc = git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"],
               cwd=path, check=False, discover=True)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != 3 or not all(line.startswith("/") for line in lines):
        return None
    top, git_dir, common = (Path(os.path.realpath(line)) for line in lines)
    return GitPlaces(top, git_dir, common)


def work_tree(path: Path) -> Path | None:
    """The top of the work tree that holds `path`, or None outside any; an InputError when git's work tree
    does not hold `path` at all (a `core.worktree` or a `gitdir:` file pointing elsewhere): what git would
    read is not what the user named."""
    if not path.is_dir():
        raise InputError(f"{path}: no such directory")
    places = git_places(path)
    if places is None:
        return None
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(places.toplevel):
        raise InputError(f"{path}: git's work tree for it is {places.toplevel} (core.worktree or a `gitdir:` "
                         "file points elsewhere), which does not hold it; review that work tree by its own path")
    return places.toplevel
