"""The base a working tree is reviewed against when none is named: where its branch left the default one."""

from __future__ import annotations

from pathlib import Path

from showcause.core.errors import InputError
from showcause.snapshot.gitcmd import git

__all__ = ["default_base", "merge_base"]

# The repository's default branch, in the order a clone names it: the remote's HEAD, then the usual names.
_DEFAULT_BRANCHES = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master")


def _commit(repo: Path, ref: str) -> str | None:
    proc = git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], cwd=repo,
               check=False, discover=True)
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None


def default_base(repo: Path) -> str:
    """The merge-base of HEAD with the default branch (origin/HEAD, else main, else master) as a commit id;
    "HEAD" when there is no such branch, no common commit, or no commit at all."""
    repo = Path(repo)
    if not repo.is_dir():
        raise InputError(f"{repo}: no such directory")
    if git(["rev-parse", "--show-toplevel"], cwd=repo, check=False, discover=True).returncode != 0:
        raise InputError(f"{repo}: not a git repository")
    if _commit(repo, "HEAD") is None:
        return "HEAD"
    for ref in _DEFAULT_BRANCHES:
        if _commit(repo, ref) is None:
            continue
        proc = git(["merge-base", "HEAD", ref], cwd=repo, check=False, discover=True)
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.strip()
    return "HEAD"


def merge_base(repo: Path, first: str, second: str) -> str | None:
    """The commit where ``second`` left ``first`` (a pull request's diff starts there, not at the base tip),
    or None when there is none to find (a shallow clone, an unknown commit)."""
    proc = git(["merge-base", "--end-of-options", first, second], cwd=Path(repo), check=False, discover=True)
    found = proc.stdout.strip()
    return found if proc.returncode == 0 and found else None
