"""The directories the server may touch (`--root`), and every `repo` argument resolved against them.

MCP's own roots are deprecated by the spec and are no access control; these are. A `repo` is resolved to its
real path and then to the top of the git repository that holds it (what a review reads git objects from), and
that top must lie inside a root: a symlink, `..` or a subdirectory of a repository above the root reaches
nothing outside.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from showcause.core.errors import InputError

__all__ = ["Roots"]


def _git_top(path: Path) -> Path:
    """The nearest directory at or above `path` with a `.git` entry (git's own discovery, read as data: no git
    runs on the host for it); `path` itself when none has one."""
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return path


@dataclass(frozen=True)
class Roots:
    dirs: tuple[Path, ...]

    @classmethod
    def of(cls, dirs: list[Path] | tuple[Path, ...]) -> Roots:
        resolved: list[Path] = []
        for d in dirs:
            real = Path(os.path.realpath(d))
            if not real.is_dir():
                raise InputError(f"--root {d}: no such directory")
            resolved.append(real)
        if not resolved:
            raise InputError("give at least one --root directory")
        return cls(tuple(resolved))

    def resolve(self, repo: str) -> Path:
        """The repository `repo` names, as a real path inside a root; anything else is an InputError."""
        if not repo or "\0" in repo:
            raise InputError("repo must be a non-empty path")
        given = Path(repo).expanduser()
        if not given.is_absolute():
            given = self.dirs[0] / given   # relative to the first root, never to the server's own directory
        real = Path(os.path.realpath(given))
        if not real.is_dir():
            raise InputError(f"repo {repo!r}: no such directory")
        top = _git_top(real)
        if not any(top == d or top.is_relative_to(d) for d in self.dirs):
            raise InputError(f"repo {repo!r} is outside the allowed roots ({', '.join(map(str, self.dirs))})")
        return top
