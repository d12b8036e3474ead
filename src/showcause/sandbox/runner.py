"""Run repository code (tests, typecheckers) in a throw-away copy under the strongest isolation available.

Levels, strongest first:
- ``bwrap``: bubblewrap with every namespace unshared (no network but a private loopback), a minimal
  read-only view of the system (no user home, no harness files, a private /tmp), the copy at ``/ws``.
- ``unshare``: new network, PID and mount namespaces (no network, no process outlives the call) but the
  host file system is visible.
- ``none``: rlimits and a process group only.
All levels scrub the environment and apply rlimits, a wall timeout and output caps.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from showcause.errors import InputError
from showcause.host import usable_cpus
from showcause.sandbox.policy import Policy
from showcause.sandbox.toolchain import node_modules

__all__ = ["SANDBOX_OUT", "SANDBOX_ROOT", "ProcResult", "available_isolation", "process_slots", "run_sandboxed"]

SANDBOX_ROOT = "/ws"
SANDBOX_OUT = "/out"
_ETC_KEEP = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf", "hosts",
             "localtime", "alternatives", "ssl", "ca-certificates", "mime.types")


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


@cache
def _probe(level: str) -> bool:
    true = shutil.which("true") or "/usr/bin/true"
    if level == "bwrap":
        if not shutil.which("bwrap"):
            return False
        argv = ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", true]
    else:
        if not shutil.which("unshare"):
            return False
        argv = ["unshare", "--net", "--pid", "--fork", "--mount", "--mount-proc", "--kill-child", true]
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def available_isolation(policy: Policy) -> str:
    """The level `run_sandboxed` will use under this policy.

    "auto" takes the strongest level that works here. A forced level that does not work is an error,
    never a silent step down.
    """
    wanted = policy.isolation
    if wanted == "none":
        return "none"
    for level in ("bwrap", "unshare"):
        if wanted in ("auto", level) and _probe(level):
            return level
    if wanted != "auto":
        raise RuntimeError(f"isolation {wanted!r} is required by the policy but does not work on this host")
    return "none"


def _ro_prefixes() -> list[str]:
    """Interpreter and tool locations the sandboxed process needs to see, read-only."""
    tools = node_modules()
    paths = {sys.prefix, sys.base_prefix, os.path.realpath(sys.executable)}
    if tools.is_dir():
        paths.add(str(tools))
    outside_usr = [p for p in paths if not p.startswith("/usr/")]
    # Bind directories, not the executable itself; drop paths nested in another bound path.
    dirs = sorted({p if os.path.isdir(p) else os.path.dirname(p) for p in outside_usr})
    return [d for d in dirs if not any(d != o and d.startswith(o + "/") for o in dirs)]


def _bwrap_argv(argv: Sequence[str], ws: Path, out: Path, tmp_bytes: int) -> list[str]:
    cmd = ["bwrap", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "sbin", "lib32"):
        top = Path("/") / name
        if top.is_symlink():
            cmd += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            cmd += ["--ro-bind", str(top), str(top)]
    for name in _ETC_KEEP:
        if (Path("/etc") / name).exists():
            cmd += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    cmd += ["--proc", "/proc"]
    # The sandbox uid maps to the caller's uid (root in CI): kernel knobs under /proc must not be writable.
    for knob in _PROC_KNOBS:
        cmd += ["--ro-bind-try", f"/proc/{knob}", f"/proc/{knob}"]
    cmd += ["--dev", "/dev", "--size", str(tmp_bytes), "--tmpfs", "/tmp", "--dir", "/tmp/home"]
    for prefix in _ro_prefixes():
        cmd += ["--ro-bind", prefix, prefix]
    cmd += ["--bind", str(ws), SANDBOX_ROOT, "--bind", str(out), SANDBOX_OUT, "--chdir", SANDBOX_ROOT,
            # A new user namespace with no capabilities and an unprivileged uid, even when we run as root.
            "--unshare-all", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--hostname", "sandbox", "--"]
    return cmd + list(argv)


def _env(policy: Policy, home: str, tmp: str, extra: dict[str, str]) -> dict[str, str]:
    venv_bin = os.path.dirname(sys.executable)
    path = [venv_bin, "/usr/local/bin", "/usr/bin", "/bin"]
    env = {k: os.environ[k] for k in policy.env_allow if k in os.environ}
    env.update({"PATH": ":".join(path), "HOME": home, "TMPDIR": tmp, "LANG": env.get("LANG", "C.UTF-8"),
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "NO_COLOR": "1", "CI": "true"})
    env.update(extra)
    return env


def _limit_argv(memory_mb: int, policy: Policy) -> list[str]:
    """rlimits through util-linux `prlimit`, inherited by everything the sandbox starts.

    (A `preexec_fn` would do the same but is unsafe when tools run in threads.)
    """
    mem = memory_mb * 1024 * 1024
    fsize = policy.file_size_mb * 1024 * 1024
    return ["prlimit", f"--as={mem}", f"--cpu={policy.cpu_s}:{policy.cpu_s + 5}", f"--fsize={fsize}",
            f"--nofile={policy.open_files}", "--core=0", "--"]


_PROC_KNOBS = ("sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "driver", "kcore", "keys", "timer_list")


def _ro_proc_knobs() -> list[str]:
    """In the unshare level's own mount namespace, make the kernel knobs under /proc read-only."""
    if os.geteuid() != 0:
        return []
    script = ('for k in ' + " ".join(_PROC_KNOBS) + '; do [ -e /proc/$k ] || continue; '
              'mount --bind /proc/$k /proc/$k && mount -o remount,bind,ro /proc/$k /proc/$k || exit 125; '
              'done; exec "$@"')
    return ["/bin/sh", "-c", script, "sh"]


def _no_caps() -> list[str]:
    """Drop every capability (and the means to regain one) before the command runs.

    Without a user namespace the unshare level runs as the caller; as root that would allow unmounting
    /proc or joining the host's network namespace. Root without capabilities can do neither.
    """
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return []
    return ["setpriv", "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--"]


_CGROUP_ROOT = Path("/sys/fs/cgroup")


def _cgroups(policy: Policy, memory_mb: int) -> list[Path]:
    """cgroup-v1 groups for this call, where the host lets us make them: pids and memory.

    RLIMIT_NPROC does not bind root, so the pids group is what bounds a fork bomb; the memory group
    counts what RLIMIT_AS cannot (files in the sandbox's tmpfs and page cache). Both also let every
    process of the call be found and killed, even one that left the process group.
    """
    made: list[Path] = []
    name = f"showcause-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    for controller, settings in (("pids", {"pids.max": str(policy.max_processes)}),
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


def _join_cgroups(groups: list[Path], cmd: list[str]) -> list[str]:
    """Join the groups before anything else runs, so every descendant is counted and can be killed."""
    if not groups:
        return cmd
    script = 'for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"'
    return ["/bin/sh", "-c", script, "sh", *(str(g / "cgroup.procs") for g in groups), "--", *cmd]


def _reap_cgroups(groups: list[Path]) -> None:
    for group in groups:
        for _ in range(50):
            try:
                pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
            except OSError:
                break
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            group.rmdir()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


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


def run_sandboxed(argv: Sequence[str], *, workspace: Path, out_dir: Path, policy: Policy, memory_mb: int,
                  timeout_s: float | None = None, env: dict[str, str] | None = None,
                  address_mb: int | None = None) -> ProcResult:
    """Run `argv` with `workspace` as its working directory; `out_dir` receives report files.

    The caller owns both directories (they are throw-away). Paths in `argv` and `env` may use
    `{root}` and `{out}`, replaced by where the directories appear inside the sandbox.
    """
    level = available_isolation(policy)
    run_dir = out_dir.parent
    if level == "bwrap":
        root, out, home, tmp = SANDBOX_ROOT, SANDBOX_OUT, "/tmp/home", "/tmp"
    else:
        root, out = str(workspace), str(out_dir)
        home, tmp = str(run_dir / "home"), str(run_dir / "tmp")
        for d in (home, tmp):
            os.makedirs(d, exist_ok=True)
    sub = {"{root}": root, "{out}": out}

    def fill(text: str) -> str:
        for k, v in sub.items():
            text = text.replace(k, v)
        return text

    inner = [fill(a) for a in argv]
    full_env = _env(policy, home, tmp, {k: fill(v) for k, v in (env or {}).items()})
    if level == "bwrap":
        cmd = _bwrap_argv(inner, workspace, out_dir, policy.file_size_mb * 1024 * 1024)
    elif level == "unshare":
        cmd = ["unshare", "--net", "--pid", "--fork", "--mount", "--mount-proc", "--kill-child", "--",
               *_ro_proc_knobs(), *_no_caps(), *inner]
    else:
        cmd = inner
    # One slot per process while it exists (its cgroups included); the wait is not charged to its timeout.
    with _slots():
        groups = _cgroups(policy, memory_mb)
        # A memory group bounds real memory (files in the tmpfs included); the address-space limit then only
        # has to stop runaway reservations, and callers running a JIT may raise it (node's WebAssembly,
        # behind `fetch`, reserves about 12 GiB of address space it never uses).
        has_memory_group = any(g.parent.name == "memory" for g in groups)
        limit_mb = max(memory_mb, address_mb or 0) if has_memory_group else memory_mb
        cmd = _join_cgroups(groups, _limit_argv(limit_mb, policy) + cmd)
        limit = timeout_s if timeout_s is not None else policy.timeout_s
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=workspace, env=full_env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            stdout, stderr, truncated, timed_out = _pump(proc, started + limit, policy.max_output_bytes)
        finally:
            _kill_group(proc)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            rc = proc.wait()
            _reap_cgroups(groups)
    notes: list[str] = []
    if truncated:
        notes.append(f"output beyond {policy.max_output_bytes} bytes per stream was discarded")
    if timed_out:
        notes.append(f"killed after the {limit:g} s wall timeout")
    return ProcResult(argv=tuple(inner), returncode=None if timed_out else rc,
                      stdout=stdout.decode("utf-8", "replace"), stderr=stderr.decode("utf-8", "replace"),
                      timed_out=timed_out, truncated=truncated, isolation=level,
                      seconds=time.monotonic() - started, root=root, out=out, notes=tuple(notes))
