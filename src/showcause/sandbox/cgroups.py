"""cgroup-v1 groups for one sandboxed process call, where the host lets us make them: pids and memory.

RLIMIT_NPROC does not bind root, so the pids group is what bounds a fork bomb; the memory group counts
what RLIMIT_AS cannot (files in the sandbox's tmpfs and page cache). Both also let every process of the
call be found and killed, even one that left the process group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

__all__ = ["join_argv", "kill_members", "make_groups", "reap"]

_CGROUP_ROOT = Path("/sys/fs/cgroup")


def make_groups(max_processes: int, memory_mb: int) -> list[Path]:
    made: list[Path] = []
    name = f"showcause-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    for controller, settings in (("pids", {"pids.max": str(max_processes)}),
                                 ("memory", {"memory.limit_in_bytes": str(memory_mb * 1024 * 1024)})):
        root = _CGROUP_ROOT / controller
        if not (root / "cgroup.procs").is_file() or not os.access(root, os.W_OK):
            continue
        group = root / name
        try:
            group.mkdir()
            for key, value in settings.items():
                (group / key).write_text(value)
        except OSError:
            with contextlib.suppress(OSError):
                group.rmdir()
            continue
        made.append(group)
    return made


def join_argv(groups: list[Path], cmd: list[str]) -> list[str]:
    """Join the groups before anything else runs, so every descendant is counted and can be killed."""
    if not groups:
        return cmd
    script = 'for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"'
    return ["/bin/sh", "-c", script, "sh", *(str(g / "cgroup.procs") for g in groups), "--", *cmd]


def kill_members(groups: list[Path]) -> bool:
    """SIGKILL every process in the groups; True when some were found."""
    found = False
    for group in groups:
        try:
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except OSError:
            continue
        for pid in pids:
            found = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    return found


def reap(groups: list[Path]) -> None:
    for _ in range(50):
        if not kill_members(groups):
            break
        time.sleep(0.02)
    for group in groups:
        with contextlib.suppress(OSError):
            group.rmdir()
