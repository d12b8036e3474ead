"""Run repository code (tests, typecheckers) in a throw-away copy, at an isolation level that hides the host.

Levels (`levels.py`): ``bwrap`` and ``unshare`` both show the process only its copy, the toolchain read-only
and a private /tmp, with no network and no host processes; ``none`` hides nothing and runs only when the
user names it. Where no level that hides the host works, nothing runs (SandboxUnavailable). Every level
scrubs the environment and applies rlimits, cgroups where the host allows, a wall timeout and output caps.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from showcause.core.errors import InputError
from showcause.core.host import usable_cpus
from showcause.core.hostproc import which
from showcause.policy import Policy
from showcause.sandbox import lifecycle
from showcause.sandbox.cgroups import join_argv, make_groups, reap
from showcause.sandbox.levels import resolve, wrap
from showcause.sandbox.mounts import SANDBOX_HOME, SANDBOX_OUT, SANDBOX_ROOT, SANDBOX_TMP, Mount
from showcause.sandbox.paths import normalize_relpath

__all__ = ["SANDBOX_OUT", "SANDBOX_ROOT", "ProcResult", "available_isolation", "process_slots", "run_sandboxed"]


@dataclass(frozen=True)
class ProcResult:
    argv: tuple[str, ...]
    returncode: int | None          # None when killed by the timeout
    stdout: str
    stderr: str
    timed_out: bool
    truncated: bool                  # some output was read and discarded
    isolation: str
    seconds: float
    root: str                        # where the workspace appeared to the process
    out: str                         # where the out dir appeared to the process
    notes: tuple[str, ...] = field(default_factory=tuple)


def available_isolation(policy: Policy) -> str:
    """The level `run_sandboxed` will use under this policy: "auto" takes the first level that hides the host.

    Raises SandboxUnavailable when no such level (or the level the policy names) works here: repository
    code is then never run, at no weaker level.
    """
    return resolve(policy.process.isolation)


def _env(policy: Policy, home: str, tmp: str, extra: dict[str, str]) -> dict[str, str]:
    venv_bin = os.path.dirname(sys.executable)
    path = [venv_bin, "/usr/local/bin", "/usr/bin", "/bin"]
    env = {k: os.environ[k] for k in policy.process.env_allow if k in os.environ}
    # Only what isolation or a fair comparison of the trees needs, so tests see the project's own environment
    # (no CI or NO_COLOR of ours: a project's colour or CI-only tests would behave otherwise). PATH, HOME and
    # TMPDIR lead into the sandbox; no bytecode is written into the copy; a fixed hash seed keeps set and dict
    # order the same on base and head, so an order-dependent test cannot pass on one and fail on the other.
    env.update({"PATH": ":".join(path), "HOME": home, "TMPDIR": tmp, "LANG": env.get("LANG", "C.UTF-8"),
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"})
    env.update(extra)
    return env


def _limit_argv(memory_mb: int, policy: Policy) -> list[str]:
    """rlimits through util-linux `prlimit`, inherited by everything the sandbox starts.

    (A `preexec_fn` would do the same but is unsafe when tools run in threads.)
    """
    mem = memory_mb * 1024 * 1024
    limits = policy.process
    fsize = limits.file_size_mb * 1024 * 1024
    return [which("prlimit") or "/usr/bin/prlimit", f"--as={mem}", f"--cpu={limits.cpu_s}:{limits.cpu_s + 5}",
            f"--fsize={fsize}", f"--nofile={limits.open_files}", "--core=0", "--"]


def _no_caps() -> list[str]:
    """At `none`, as root: drop every capability (and the means to regain one) before the command runs."""
    setpriv = which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        return []
    return [setpriv, "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--"]


def _pump(proc: subprocess.Popen[bytes], deadline: float, cap: int) -> tuple[bytes, bytes, bool, bool]:
    """Read both pipes until EOF or the deadline, keeping at most `cap` bytes of each."""
    assert proc.stdout is not None and proc.stderr is not None
    kept = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    truncated = timed_out = False
    sel = selectors.DefaultSelector()
    for stream in kept:
        os.set_blocking(stream.fileno(), False)
        sel.register(stream, selectors.EVENT_READ)
    exited_at: float | None = None
    while sel.get_map():
        now = time.monotonic()
        if now >= deadline:
            timed_out = True
            break
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        # Once the main process is gone, a leftover writer gets one short grace period only.
        if exited_at is not None and now - exited_at > 1.0:
            break
        for key, _ in sel.select(timeout=min(0.2, deadline - now)):
            stream = key.fileobj
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(stream)
                continue
            buf = kept[stream]  # type: ignore[index]
            room = cap - len(buf)
            if room > 0:
                buf += chunk[:room]
            if len(chunk) > room:
                truncated = True
    sel.close()
    return bytes(kept[proc.stdout]), bytes(kept[proc.stderr]), truncated, timed_out


def process_slots() -> int:
    """How many sandboxed processes run at once in this showcause process: `SHOWCAUSE_PROCESSES`, else
    the CPUs it may use. More than one per core costs more than it overlaps: on 2 cores the mechanical
    bench used 10% more CPU with its tests and type checkers free to run 4 at a time (docs/performance.md)."""
    raw = os.environ.get("SHOWCAUSE_PROCESSES", "").strip()
    if not raw:
        return usable_cpus()
    if not raw.isdigit() or int(raw) < 1:
        raise InputError(f"SHOWCAUSE_PROCESSES must be a whole number of at least 1, not {raw!r}")
    return int(raw)


@cache
def _slots() -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(process_slots())


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _places(level: str, workspace: Path, out_dir: Path) -> tuple[str, str, str, str]:
    """Where the copy, the out dir, HOME and TMPDIR appear to the process."""
    if level != "none":
        return SANDBOX_ROOT, SANDBOX_OUT, SANDBOX_HOME, SANDBOX_TMP
    run_dir = out_dir.parent
    home, tmp = str(run_dir / "home"), str(run_dir / "tmp")
    for d in (home, tmp):
        os.makedirs(d, exist_ok=True)
    return str(workspace), str(out_dir), home, tmp


def _confined(workspace: Path, mounts: Sequence[Mount]) -> list[Mount]:
    """The steps whose place inside the copy is reached through no link: a tree holding a link where a bind
    or link of the project's environment goes would carry it outside the copy (at `unshare`, onto the host).
    A link step is also dropped where the copy already holds that path."""
    kept: list[Mount] = []
    for m in mounts:
        if not m.dst.startswith("{root}/"):
            kept.append(m)
            continue
        parts = m.dst.removeprefix("{root}/").split("/")
        current, ok = workspace, all(p not in ("", ".", "..") for p in parts)
        for i, part in enumerate(parts if ok else ()):
            current = current / part
            try:
                mode = os.lstat(current).st_mode
            except OSError:
                break
            last = i == len(parts) - 1
            if stat.S_ISLNK(mode) or (not last and not stat.S_ISDIR(mode)) or (last and m.op == "symlink"):
                ok = False
                break
        if ok:
            kept.append(m)
    return kept


def _link_into(workspace: Path, mounts: Sequence[Mount]) -> None:
    """At `none` the host is visible as it is: only what the plan would have placed inside the copy is made
    there (a bind becomes a link to its source; directories and links are made as they are). Absolute
    destinations are the host paths themselves."""
    for m in mounts:
        if m.op not in ("ro", "dir", "symlink") or not m.dst.startswith("{root}/"):
            continue
        path = workspace / m.dst.removeprefix("{root}/")
        if m.op == "dir":
            path.mkdir(parents=True, exist_ok=True)
        elif not os.path.lexists(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):   # another process on the same copy made it first
                path.symlink_to(m.src)


def _run_in_slot(cmd: list[str], cwd: Path, env: dict[str, str], policy: Policy, memory_mb: int,
                 address_mb: int | None, limit: float) -> tuple[int, bytes, bytes, bool, bool, float]:
    """Run the wrapped command once a process slot is free:
    (returncode, stdout, stderr, truncated, timed out, seconds it ran).

    One slot per process while it exists (its cgroups included); the wait is not charged to its timeout.
    """
    with _slots():
        lifecycle.check_stopping()
        groups = make_groups(policy.process.max_processes, memory_mb)
        # A memory group bounds real memory (files in the tmpfs included); the address-space limit then only
        # has to stop runaway reservations, and callers running a JIT may raise it (node's WebAssembly,
        # behind `fetch`, reserves about 12 GiB of address space it never uses).
        has_memory_group = any(g.parent.name == "memory" for g in groups)
        limit_mb = max(memory_mb, address_mb or 0) if has_memory_group else memory_mb
        cmd = join_argv(groups, _limit_argv(limit_mb, policy) + cmd)
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            with lifecycle.tracked_process(proc, groups):
                stdout, stderr, truncated, timed_out = _pump(proc, started + limit, policy.process.max_output_bytes)
        finally:
            _kill_group(proc)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            rc = proc.wait()
            reap(groups)
    return rc, stdout, stderr, truncated, timed_out, time.monotonic() - started


def run_sandboxed(argv: Sequence[str], *, workspace: Path, out_dir: Path, policy: Policy, memory_mb: int,
                  timeout_s: float | None = None, env: dict[str, str] | None = None,
                  address_mb: int | None = None, mounts: Sequence[Mount] = (), cwd: str = "") -> ProcResult:
    """Run `argv` with `workspace` as its working directory; `out_dir` receives report files.

    The caller owns both directories (they are throw-away, siblings in one run directory). Paths in `argv`
    and `env` may use `{root}` and `{out}`, replaced by where the directories appear inside the sandbox.
    `mounts`: the project environment's read-only binds (`ProjectEnv.mounts`), after the plan's own.
    `cwd`: a normalized path inside the copy to start in (a monorepo package), else its root.
    Raises SandboxUnavailable (nothing runs) when the policy's level does not work here.
    """
    lifecycle.check_stopping()
    level = available_isolation(policy)
    root, out, home, tmp = _places(level, workspace, out_dir)
    sub = {"{root}": root, "{out}": out}

    def fill(text: str) -> str:
        for k, v in sub.items():
            text = text.replace(k, v)
        return text

    inner = [fill(a) for a in argv]
    full_env = _env(policy, home, tmp, {k: fill(v) for k, v in (env or {}).items()})
    new_root = out_dir.parent / "root"
    if level == "unshare":
        new_root.mkdir(exist_ok=True)
    cwd = normalize_relpath(cwd) if cwd else ""
    mounts = _confined(workspace, mounts)
    cmd = wrap(level, inner, workspace, out_dir, policy.process.tmpfs_mb * 1024 * 1024, new_root, mounts, cwd)
    if level == "none":
        _link_into(workspace, mounts)
        cmd = _no_caps() + cmd
        lifecycle.adopt_orphans()
    limit = timeout_s if timeout_s is not None else policy.process.timeout_s
    # Host programs (prlimit, bwrap, unshare) start outside the reviewed tree; the sandbox enters /ws itself.
    start = (workspace / cwd if cwd else workspace) if level == "none" else out_dir.parent
    rc, stdout, stderr, truncated, timed_out, seconds = _run_in_slot(cmd, start, full_env, policy, memory_mb,
                                                                     address_mb, limit)
    lifecycle.check_stopping()   # a process killed by a signal's handler reports nothing
    notes: list[str] = []
    if truncated:
        notes.append(f"output beyond {policy.process.max_output_bytes} bytes per stream was discarded")
    if timed_out:
        notes.append(f"killed after the {limit:g} s wall timeout")
    return ProcResult(argv=tuple(inner), returncode=None if timed_out else rc,
                      stdout=stdout.decode("utf-8", "replace"), stderr=stderr.decode("utf-8", "replace"),
                      timed_out=timed_out, truncated=truncated, isolation=level,
                      seconds=seconds, root=root, out=out, notes=tuple(notes))
