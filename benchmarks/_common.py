"""Shared helpers for the benchmark scripts: timing and a tree of at least N files."""

from __future__ import annotations

import statistics
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["big_tree", "fake_snapshot", "median_time"]


def median_time(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm the page cache and any lazy imports
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def big_tree() -> Path:
    """This interpreter's lib directory: the stdlib plus site-packages of the running venv's base."""
    return Path(sysconfig.get_paths()["stdlib"])


def fake_snapshot(tree: Path):
    """A Snapshot whose base and head are one existing tree (read-only tools only)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from showcause.snapshot import Diff, Snapshot

    return Snapshot(base=tree, head=tree, diff=Diff(), label=str(tree))
