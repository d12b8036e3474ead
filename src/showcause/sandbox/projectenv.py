"""The project's own environment a sandboxed run uses: which interpreter, and what is bound read-only for it.

A review starts with showcause's own interpreter and nothing extra; `pyenv`/`nodeenv` resolve the
project's (its virtualenv, its installed `node_modules`) into a `ProjectEnv` once per review. The same
environment serves base and head, so a difference between the two trees is the change's, never the
environment's.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from showcause.sandbox.mounts import Mount

__all__ = ["ProjectEnv"]


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
