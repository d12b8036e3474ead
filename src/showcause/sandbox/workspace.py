"""Throw-away copies of a tree: one per process call, so nothing a call does is seen by any later call."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RunDirs", "fresh_copy"]


@dataclass(frozen=True)
class RunDirs:
    workspace: Path    # the copy the process runs in
    out: Path          # where the harness's report files go (not part of the copy)


def _force_remove(func: object, path: str, _exc: object) -> None:
    # A test may leave read-only directories behind; make them writable and retry once.
    parent = os.path.dirname(path)
    for p in (parent, path):
        with suppress(OSError):
            os.chmod(p, os.stat(p, follow_symlinks=False).st_mode | stat.S_IWUSR | stat.S_IXUSR)
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


@contextmanager
def fresh_copy(tree: Path) -> Iterator[RunDirs]:
    run = Path(tempfile.mkdtemp(prefix="showcause-run-"))
    try:
        shutil.copytree(tree, run / "ws", symlinks=True)
        (run / "out").mkdir()
        yield RunDirs(run / "ws", run / "out")
    finally:
        shutil.rmtree(run, onerror=_force_remove)
