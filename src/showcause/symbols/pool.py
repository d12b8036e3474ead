"""Definitions extraction for many files at once, shared with worker processes when the load is large.

Parsing holds the GIL (the tree-sitter binding never releases it), so only processes run it in parallel.
Workers are plain subprocesses (running :func:`showcause.symbols.extract_worker.main`, see there for the
protocol), not ``multiprocessing`` ones: those re-run the parent's ``__main__`` script in every child,
and forking a process that runs threads is unsafe.  They are host processes started while a hostile tree
may be the working directory, so they run isolated (:mod:`showcause.core.hostproc`).  One thread per worker
sends it chunks of files and waits for the answers (the GIL is released while it waits).  A worker costs
an interpreter start that imports tree-sitter (0.2-0.5 s of its own CPU) and a pickle round trip per
result, so none starts before :data:`PARALLEL_MIN_FILES` files were extracted here, and they stop when the
load is done.  Workers read each file themselves and extract it only if its digest is still the one the
parent saw; otherwise, and whenever a worker fails, the parent extracts the file itself.  A parse that
gives up (its time limit, or the caller's analysis budget, which each chunk carries to its worker) leaves
the file out, with the reason.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from sys import intern
from typing import Generic, TypeVar

from showcause.core.analysis_budget import PARSE_GAVE_UP, AnalysisBudget
from showcause.core.host import usable_cpus
from showcause.core.hostproc import HOST_CWD, host_env, isolated_python
from showcause.sandbox.lifecycle import check_stopping, should_stop

from .cache import definitions_for_content, digest_of, store_definitions
from .extract import FileDefinitions
from .extract_worker import GAVE_UP, Job, Result, read_frame, write_frame
from .languages import ParseTimeout, read_source

__all__ = ["MAX_AUTO_WORKERS", "PARALLEL_MIN_FILES", "Extractor", "auto_workers", "extraction_plan"]

PARALLEL_MIN_FILES = 500  # files extracted here before workers start: small loads never start one
MAX_AUTO_WORKERS = 2  # processes, this one included: a review runs pyright and tests beside the index
_CHUNK = 48  # files per round trip: amortizes it without leaving one worker a long tail

_log = logging.getLogger(__name__)
_K = TypeVar("_K")
_Item = tuple[_K, str, str, bytes, str]  # key, path, language, digest, name for messages
Found = FileDefinitions | str | None  # str: why the parse gave up; None: the file could not be extracted


def auto_workers() -> int:
    """Processes an automatic load may use (this one included): the usable cores, at most MAX_AUTO_WORKERS."""
    return max(1, min(usable_cpus(), MAX_AUTO_WORKERS))


def extraction_plan(workers: int | None, min_files: int) -> tuple[int, int, bool]:
    """``(workers, min_parallel, adaptive)`` of an :class:`Extractor` for a load.

    ``workers`` None is automatic: :func:`auto_workers`, the others starting after ``min_files`` files and
    only on idle cores; ``min_files`` 0 forces at least one worker, at once, whatever the cores (so that a
    test exercises workers on any host).  An explicit count starts its workers at once.
    """
    if workers is not None:
        return workers, 2, False
    if min_files <= 0:
        return max(2, auto_workers()), 0, False
    return auto_workers(), min_files, True


def _cpu_times() -> tuple[int, int] | None:
    """(idle, total) jiffies of all cores since boot, or None where /proc/stat does not exist."""
    try:
        with open("/proc/stat", "rb") as handle:
            fields = [int(x) for x in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return fields[3] + fields[4], sum(fields[:8])  # idle + iowait; user .. steal


def _idle_cores(since: tuple[int, int] | None) -> float | None:
    """How many cores were idle on average since ``since`` (None: unknown)."""
    now = _cpu_times()
    if since is None or now is None or now[1] <= since[1]:
        return None
    return (os.cpu_count() or 1) * (now[0] - since[0]) / (now[1] - since[1])


class _Worker:
    """One worker subprocess, used by one thread at a time."""

    def __init__(self) -> None:
        # Isolated, from no directory of the user's, with no variable of ours: nothing of a reviewed tree
        # (a top-level pickle.py, sitecustomize.py, …) is importable in it, and it holds no secret.
        self._proc = subprocess.Popen(
            isolated_python("showcause.symbols.extract_worker"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=HOST_CWD,
            env=host_env(),
        )

    def run(self, jobs: list[Job], seconds: float | None) -> list[Result]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        write_frame(self._proc.stdin, (seconds, jobs))
        results = read_frame(self._proc.stdout)
        if not isinstance(results, list) or len(results) != len(jobs):
            raise EOFError("symbol extraction worker ended early")
        return results

    def kill(self) -> None:
        """The review is stopping: the current parse may take seconds more.  The pipe ends, so a thread
        reading it returns (closing the pipe under a reading thread would wait for its lock)."""
        self._proc.kill()

    def close(self) -> None:
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


class Extractor(Generic[_K]):
    """Extracts the definitions of the files added, each under a caller's key; see the module docstring.

    ``workers``: processes to use, this one included (1: this one only).  The first ``min_parallel``
    files are extracted here; then worker processes start, and each file goes to one of them while it
    has fewer than two chunks waiting, and is extracted here otherwise.  So this process never idles
    while workers are busy, a worker that starts slowly gets less, and a load that ends before the
    workers are useful costs them nothing.  With ``adaptive``, only as many workers start as cores were
    idle (rounded) while the first files were extracted: a worker on a busy core only adds its start-up,
    the double reads and the pickling to the same CPU time (measured: 10-15% slower than one process
    while another program kept one of two cores busy).  With ``min_parallel`` 0 every chunk handed to the
    workers is waited for, never taken back, so a worker surely runs.  The content cache gets every result.
    """

    def __init__(self, workers: int, min_parallel: int = PARALLEL_MIN_FILES, *, adaptive: bool = False,
                 budget: AnalysisBudget | None = None) -> None:
        self._budget = budget
        self._extra = workers - 1
        self._min_parallel = min_parallel
        self._forced = min_parallel == 0
        self._since = _cpu_times() if adaptive and workers > 1 else None
        self._added = 0
        self._done: list[tuple[_K, bytes, Found]] = []
        self._chunk: list[_Item[_K]] = []
        self._tasks: list[tuple[list[_Item[_K]], Future[list[Result]]]] = []
        self._finished = 0  # tasks before this index are done (they finish about in order)
        self._threads: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self._started: list[_Worker] = []
        self._started_lock = threading.Lock()

    def add(self, key: _K, path: str, language: str, digest: bytes, data: bytes, name: str = "") -> None:
        """Add the file at ``path`` (``name``: how messages call it), whose content ``data`` was read."""
        item = (key, path, language, digest, name)
        self._added += 1
        if self._extra > 0 and self._added > self._min_parallel and (self._chunk or self._has_room()):
            self._chunk.append(item)
            if len(self._chunk) >= _CHUNK:
                self._submit()
            return
        self._done.append((key, digest, _in_process(data, item, self._budget)))

    def _has_room(self) -> bool:
        if self._threads is None:
            idle = _idle_cores(self._since) if self._since is not None else None
            if idle is not None:
                self._extra = min(self._extra, int(idle + 0.5))
                if self._extra <= 0:
                    return False
            self._threads = ThreadPoolExecutor(self._extra, thread_name_prefix="symbols-worker")
        while self._finished < len(self._tasks) and self._tasks[self._finished][1].done():
            self._finished += 1
        return len(self._tasks) - self._finished < 2 * self._extra

    def _submit(self) -> None:
        assert self._threads is not None
        chunk, self._chunk = self._chunk, []
        jobs = [(path, language, digest) for _, path, language, digest, _ in chunk]
        self._tasks.append((chunk, self._threads.submit(self._run, jobs)))

    def _run(self, jobs: list[Job]) -> list[Result]:
        """Runs in one of the threads: the thread's own worker extracts ``jobs``."""
        worker: _Worker | None = getattr(self._local, "worker", None)
        if worker is None:
            worker = _Worker()
            self._local.worker = worker
            with self._started_lock:
                self._started.append(worker)
        return worker.run(jobs, self._budget.remaining() if self._budget is not None else None)

    def results(self) -> Iterator[tuple[_K, bytes, Found]]:
        """Yield ``(key, digest, definitions)``, definitions None for a file that could not be extracted, or
        why its parse gave up.
        The digest differs from the one added when the file changed in the meantime: the definitions are
        those of the content with the digest yielded."""
        yield from self._done
        self._done = []
        if self._threads is None:
            return
        try:
            if self._chunk:
                self._submit()
            broken = False
            for chunk, future in self._tasks:
                results: list[Result] = [None] * len(chunk)  # None: extracted here after all
                # A chunk no worker has taken yet is extracted here rather than waited for.
                if not broken and (self._forced or not future.cancel()):
                    try:
                        results = _wait(future)
                    except Exception:  # a worker that crashed or could not start: the rest is done here
                        _log.warning("symbol extraction worker failed; extracting in-process", exc_info=True)
                        broken = True
                for item, result in zip(chunk, results, strict=True):
                    yield (item[0], *_accept(result, item, self._budget))
        finally:
            if should_stop():
                with self._started_lock:
                    for worker in self._started:
                        worker.kill()
            self._threads.shutdown(wait=True, cancel_futures=True)
            self._threads = None
            self._tasks = []
            for worker in self._started:
                worker.close()
            self._started = []


def _wait(future: Future[list[Result]]) -> list[Result]:
    """The future's result; a cancellation of the review ends the wait (a signal does on its own)."""
    while True:
        try:
            return future.result(timeout=0.1)
        except TimeoutError:
            check_stopping()


def _in_process(data: bytes, item: _Item[object], budget: AnalysisBudget | None) -> Found:
    _key, path, language, digest, name = item
    try:
        seconds = budget.parse_limit(len(data)) if budget is not None else None
        return definitions_for_content(data, language, name or path, digest, seconds)
    except ParseTimeout:  # hostile input, or the budget ran out: left out, and said why
        return _why_gave_up(budget)
    except Exception:  # one pathological file must not take the whole index down
        _log.warning("cannot extract symbols from %s", path, exc_info=True)
        return None


def _why_gave_up(budget: AnalysisBudget | None) -> str:
    return budget.budget_reason if budget is not None and budget.expired() else PARSE_GAVE_UP


def _accept(result: Result, item: _Item[object], budget: AnalysisBudget | None) -> tuple[bytes, Found]:
    _key, path, language, digest, name = item
    if isinstance(result, str) and result.startswith(GAVE_UP):
        return digest, _why_gave_up(budget)
    if isinstance(result, str):
        _log.warning("cannot extract symbols from %s: %s", path, result)
        return digest, None
    if result is None:  # changed since the parent read it, or the worker failed: read it again here
        data = read_source(path)
        if data is None:
            return digest, None
        digest = digest_of(data)
        return digest, _in_process(data, (_key, path, language, digest, name), budget)
    definitions, imports, has_errors = result
    # Names are shared between files: interned here, as in-process extraction does, they are stored once.
    found = FileDefinitions(language, {intern(n): rows for n, rows in definitions.items()}, imports, has_errors)
    store_definitions(language, digest, found)
    return digest, found
