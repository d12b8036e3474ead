"""The minimal file system a sandboxed process sees, as one plan that both namespace levels build.

bubblewrap gets it as command-line options; the `unshare` level's helper (`_nsinit.py`) builds it itself.
The process sees its throw-away copy read-write at ``/ws``, the report dir at ``/out``, the system and the
interpreter/toolchain it needs read-only, a private ``/tmp`` (with ``HOME``), a fresh ``/proc`` whose kernel
knobs are read-only, and a minimal ``/dev`` — nothing else of the host.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from showcause.sandbox.toolchain import node_modules

__all__ = ["SANDBOX_HOME", "SANDBOX_OUT", "SANDBOX_ROOT", "SANDBOX_TMP", "Mount", "bwrap_options", "plan",
           "ro_prefixes"]

SANDBOX_ROOT = "/ws"
SANDBOX_OUT = "/out"
SANDBOX_TMP = "/tmp"
SANDBOX_HOME = "/tmp/home"
_ETC_KEEP = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf", "hosts",
             "localtime", "alternatives", "ssl", "ca-certificates", "mime.types")
# The sandbox uid maps to the caller's uid (root in CI): kernel knobs under /proc must not be writable.
PROC_KNOBS = ("sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "driver", "kcore", "keys", "timer_list")


@dataclass(frozen=True)
class Mount:
    """One step of the plan, applied in order.

    op: ``ro`` / ``rw`` (bind host ``src`` at ``dst``), ``knob`` (make ``dst`` inside the new /proc
    read-only, if it exists), ``tmpfs`` (``size`` bytes), ``proc``, ``dev``, ``dir``, ``symlink``
    (``src`` is the link's target), ``ro-root`` (last: the root itself read-only).
    """

    op: str
    dst: str
    src: str = ""
    size: int = 0

    def to_json(self) -> dict[str, str | int]:
        return {"op": self.op, "dst": self.dst, "src": self.src, "size": self.size}


def ro_prefixes() -> list[str]:
    """Interpreter and tool locations the sandboxed process needs to see, read-only."""
    tools = node_modules()
    paths = {sys.prefix, sys.base_prefix, os.path.realpath(sys.executable)}
    if tools.is_dir():
        paths.add(str(tools))
    outside_usr = [p for p in paths if not p.startswith("/usr/")]
    # Bind directories, not the executable itself; drop paths nested in another bound path.
    dirs = sorted({p if os.path.isdir(p) else os.path.dirname(p) for p in outside_usr})
    return [d for d in dirs if not any(d != o and d.startswith(o + "/") for o in dirs)]


def tmpfs_sizes(total: int) -> tuple[int, int, int]:
    """Bytes of /tmp, /dev/shm and home out of `total`: a quarter for the last two, the rest for /tmp."""
    eighth = total // 8
    return total - 2 * eighth, eighth, eighth


def plan(workspace: Path, out: Path, tmpfs_bytes: int, extra: Sequence[Mount] = ()) -> list[Mount]:
    """The whole plan; `extra` steps (a project's environment) come last, so they may land inside ``/ws``.
    Every place a process may write that is memory-backed is a tmpfs with a size, `tmpfs_bytes` in all; the
    root itself ends read-only (``ro-root``)."""
    tmp_bytes, shm_bytes, home_bytes = tmpfs_sizes(tmpfs_bytes)
    steps = [Mount("ro", "/usr", "/usr")]
    for name in ("bin", "lib", "lib64", "sbin", "lib32"):
        top = Path("/") / name
        if top.is_symlink():
            steps.append(Mount("symlink", str(top), os.readlink(top)))
        elif top.is_dir():
            steps.append(Mount("ro", str(top), str(top)))
    steps += [Mount("ro", f"/etc/{name}", f"/etc/{name}") for name in _ETC_KEEP if (Path("/etc") / name).exists()]
    steps.append(Mount("proc", "/proc"))
    steps += [Mount("knob", f"/proc/{knob}") for knob in PROC_KNOBS]
    # /tmp before the prefixes: an interpreter that lives under /tmp is bound on top of the private /tmp.
    steps += [Mount("dev", "/dev"), Mount("tmpfs", "/dev/shm", size=shm_bytes),
              Mount("tmpfs", SANDBOX_TMP, size=tmp_bytes), Mount("tmpfs", SANDBOX_HOME, size=home_bytes)]
    steps += [Mount("ro", prefix, prefix) for prefix in ro_prefixes()]
    steps += [Mount("rw", SANDBOX_ROOT, str(workspace)), Mount("rw", SANDBOX_OUT, str(out))]
    steps += [Mount(m.op, m.dst.replace("{root}", SANDBOX_ROOT), m.src, m.size) for m in extra]
    steps.append(Mount("ro-root", "/"))
    return steps


def bwrap_options(steps: list[Mount]) -> list[str]:
    """The plan as bubblewrap options (bubblewrap resolves every source on the host)."""
    argv: list[str] = []
    for m in steps:
        if m.op in ("ro", "rw"):
            argv += ["--ro-bind" if m.op == "ro" else "--bind", m.src, m.dst]
        elif m.op == "knob":
            argv += ["--ro-bind-try", m.dst, m.dst]
        elif m.op == "tmpfs":
            argv += ["--size", str(m.size), "--tmpfs", m.dst]
        elif m.op in ("proc", "dev", "dir"):
            argv += [f"--{m.op}", m.dst]
        elif m.op == "symlink":
            argv += ["--symlink", m.src, m.dst]
        elif m.op == "ro-root":   # bubblewrap's own root is an unsized tmpfs: nothing may be written there
            argv += ["--remount-ro", "/"]
        else:
            raise ValueError(f"unknown mount step {m.op!r}")
    return argv
