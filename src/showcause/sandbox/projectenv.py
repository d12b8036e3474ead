"""The project's own environment a sandboxed run uses: which interpreter, and what is bound read-only for it.

A review starts with showcause's own interpreter and nothing extra; `pyenv`/`nodeenv` resolve the
project's (its virtualenv, its installed `node_modules`) into a `ProjectEnv` once per review. The same
environment serves base and head, so a difference between the two trees is the change's, never the
environment's.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from showcause.sandbox.mounts import Mount
from showcause.sandbox.pyenv import project_python

__all__ = ["ProjectEnv", "resolve_env"]


@dataclass(frozen=True)
class ProjectEnv:
    python: str = sys.executable            # the interpreter tests and pyright use, as the sandbox sees it
    origin: str = "showcause's own"         # where `python` came from, said in every output that used it
    # Read-only binds (``op="ro"``) or links, applied after the workspace: a destination under ``{root}``
    # lands inside the copy being run (a project's node_modules), any other one at that absolute path.
    mounts: tuple[Mount, ...] = field(default_factory=tuple)
    # Directories of the tree (relative) on the tests' import path, as a case's `checks.env.pythonpath` says.
    pythonpath: tuple[str, ...] = field(default_factory=tuple)
    notes: tuple[str, ...] = field(default_factory=tuple)
    packages: str = ""                      # a digest of what is installed for `python` ("" for showcause's own)

    @property
    def own(self) -> bool:
        """showcause's own interpreter and packages (a project's node_modules may still be bound)."""
        return self.python == sys.executable

    def cache_key(self) -> dict[str, Any]:
        """What a cached base result run in this environment depends on."""
        return {"python": self.python, "mounts": [m.to_json() for m in self.mounts], "packages": self.packages,
                "pythonpath": list(self.pythonpath)}


def resolve_env(source: Path | None, *, python: Path | None = None, configured: str = "", isolation: str = "auto",
                environ: Mapping[str, str] | None = None, extra: Sequence[Mount] = ()) -> ProjectEnv:
    """The environment of one review of `source` (the repository's directory, None for a case folder):
    `python` is `--python`, `configured` the user's `[sandbox] python`, `isolation` the policy's level;
    `extra`: more binds (the repository's node_modules, `nodeenv`). Raises InputError (exit 2) for a
    `--python` or `[sandbox] python` that is not an interpreter."""
    found = project_python(source, explicit=python, configured=configured, environ=environ, isolation=isolation)
    return ProjectEnv(python=found.python, origin=found.origin, mounts=(*extra, *found.mounts), notes=found.notes,
                      packages=found.packages)
