"""What a SIGINT or SIGTERM must undo at once: the sandboxed processes alive now and the temporary trees.

The CLI installs `install_handlers` in its main thread. On a signal the handler kills every tracked
process group and cgroup member (so nothing a review started keeps running), marks the process as
stopping (no new sandboxed process starts, in any thread) and raises `Interrupted` in the main thread;
the CLI then removes every tracked directory and exits 128 + the signal number.

A `Scope` is the same for one call of a long-lived server (an MCP `review_change`): cancelling it kills the
processes started in it, in any thread that carries its context (`core.threads.ContextPool`), starts none
in it again, and leaves every other call running.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from showcause.core.errors import Cancelled, Interrupted
from showcause.sandbox.cgroups import kill_members
from showcause.sandbox.cleanup import remove_tree

__all__ = ["Scope", "check_stopping", "forget_dir", "install_handlers", "remove_tracked_dirs", "should_stop",
           "stopping", "track_dir", "tracked_process"]

_lock = threading.RLock()           # re-entered by the handler when a signal lands inside a tracked section
_procs: dict[int, tuple[subprocess.Popen[bytes], list[Path]]] = {}
_dirs: set[str] = set()
_signal = 0


class Scope:
    """The sandboxed processes of one call, and whether the call was cancelled."""

    def __init__(self) -> None:
        self.cancelled = False
        self.procs: dict[int, tuple[subprocess.Popen[bytes], list[Path]]] = {}

    def cancel(self) -> None:
        """Kill every process of the call now; any it would start later is killed as it starts."""
        with _lock:
            self.cancelled = True
            live = list(self.procs.values())
        for proc, groups in live:
            _kill(proc, groups)

    @contextlib.contextmanager
    def active(self) -> Iterator[Scope]:
        """Processes started in this context (and in pools it submits to) belong to this scope."""
        token = _scope.set(self)
        try:
            yield self
        finally:
            _scope.reset(token)


_scope: contextvars.ContextVar[Scope | None] = contextvars.ContextVar("showcause_scope", default=None)


def stopping() -> int:
    """The signal that arrived, or 0."""
    return _signal


def should_stop() -> bool:
    """Whether a signal arrived or this context's scope was cancelled (see ``check_stopping``)."""
    scope = _scope.get()
    return bool(_signal) or (scope is not None and scope.cancelled)


def check_stopping() -> None:
    if _signal:
        raise Interrupted(_signal)
    scope = _scope.get()
    if scope is not None and scope.cancelled:
        raise Cancelled()


def _kill(proc: subprocess.Popen[bytes], groups: list[Path]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    kill_members(groups)


@contextlib.contextmanager
def tracked_process(proc: subprocess.Popen[bytes], groups: list[Path]) -> Iterator[None]:
    """Track a started process (its group and cgroups) until the block ends; killed at once if stopping."""
    scope = _scope.get()
    with _lock:
        _procs[proc.pid] = (proc, groups)
        if scope is not None:
            scope.procs[proc.pid] = (proc, groups)
        late = bool(_signal) or (scope is not None and scope.cancelled)
    try:
        if late:
            _kill(proc, groups)
        yield
    finally:
        with _lock:
            _procs.pop(proc.pid, None)
            if scope is not None:
                scope.procs.pop(proc.pid, None)


def track_dir(path: Path | str) -> None:
    with _lock:
        _dirs.add(str(path))


def forget_dir(path: Path | str) -> None:
    with _lock:
        _dirs.discard(str(path))


def remove_tracked_dirs() -> None:
    with _lock:
        dirs = sorted(_dirs)
        _dirs.clear()
    for path in dirs:
        remove_tree(Path(path))


def _descendants() -> list[int]:
    """Every process below this one (by parent links in /proc), before any of them dies and is re-parented."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def adopt_orphans() -> None:
    """Become the parent of orphans of our children (at `none` there is no PID namespace to hold them), so a
    signal finds a detached process of the code under test among this process's descendants."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)   # PR_SET_CHILD_SUBREAPER


def kill_all(signum: int) -> None:
    """Mark the process as stopping and kill every tracked sandboxed process and every descendant."""
    global _signal
    with _lock:
        _signal = _signal or signum
        live = list(_procs.values())
    below = _descendants()
    for proc, groups in live:
        _kill(proc, groups)
    for pid in below:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _handle(signum: int, _frame: FrameType | None) -> None:
    kill_all(signum)
    raise Interrupted(signum)


def install_handlers() -> None:
    """SIGINT and SIGTERM end the run (main thread only)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _handle)
