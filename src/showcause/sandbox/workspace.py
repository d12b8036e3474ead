"""Throw-away copies of a tree: one per process call, so nothing a call does is seen by any later call."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from showcause.sandbox.cleanup import remove_tree
from showcause.sandbox.lifecycle import forget_dir, track_dir

__all__ = ["RunDirs", "fresh_copy", "fresh_out"]


@dataclass(frozen=True)
class RunDirs:
    workspace: Path    # the copy the process runs in
    out: Path          # where the harness's report files go (not part of the copy)


@contextmanager
def fresh_copy(tree: Path) -> Iterator[RunDirs]:
    run = Path(tempfile.mkdtemp(prefix="showcause-run-"))
    track_dir(run)   # removed even when a signal ends the run
    try:
        shutil.copytree(tree, run / "ws", symlinks=True)
        (run / "out").mkdir()
        yield RunDirs(run / "ws", run / "out")
    finally:
        remove_tree(run)
        forget_dir(run)


def fresh_out(dirs: RunDirs, index: int) -> Path:
    """The report dir of the `index`th process run on a copy: its own empty one beside the copy (the first
    takes `dirs.out`), so nothing an earlier process left there (its report, a directory in a report's name)
    is ever read as, or stands in the way of, a later one's."""
    if index == 0:
        return dirs.out
    out = dirs.out.with_name(f"out{index}")
    out.mkdir()
    return out
