"""The directories the server may touch (`--root`), and every `repo` argument resolved against them.

MCP's own roots are deprecated by the spec and are no access control; these are. A `repo` is resolved to its
real path and then to where git reads the repository that holds it from: the top of its work tree, its git
directory and their common directory (`git rev-parse`, nothing of the repository's config runs). All three must
lie inside a root: a symlink, `..`, a subdirectory of a repository above the root, a `.git` file whose
`gitdir:` names another repository or a `core.worktree` elsewhere reaches nothing outside.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from showcause.core.errors import InputError
from showcause.snapshot.gitplaces import git_places

__all__ = ["Roots"]


@dataclass(frozen=True)
class Roots:
    dirs: tuple[Path, ...]

    @classmethod
    def of(cls, dirs: list[Path] | tuple[Path, ...]) -> Roots:
        resolved: list[Path] = []
        for d in dirs:
            real = Path(os.path.realpath(d))
            if not real.is_dir():
                raise InputError(f"`root` {d}: no such directory")
            resolved.append(real)
        if not resolved:
            raise InputError("give at least one `root` directory")
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
        places = git_places(real)
        top = places.toplevel if places is not None else real
        where = places.all() if places is not None else (real,)
        outside = [p for p in where if not any(p.is_relative_to(d) for d in self.dirs)]
        if outside:
            why = "" if outside[0] == top else f": git reads it from {outside[0]}"
            raise InputError(f"repo {repo!r} is outside the allowed roots ({', '.join(map(str, self.dirs))}){why}")
        if not real.is_relative_to(top):
            raise InputError(f"repo {repo!r}: git's work tree for it is {top}, which does not hold it")
        return top
