"""Isolation levels: how each one wraps a command, which of them work on this host, and why none does.

Two levels hide the host (the process sees only its copy, the toolchain read-only, a private /tmp and
HOME; no network, no host processes): ``bwrap`` (bubblewrap) and ``unshare`` (util-linux namespaces plus
the `_nsinit.py` helper, which builds the same minimal root). ``auto`` takes the first that works. ``none``
hides nothing and is used only when the user asks for it by name. When no level that hides the host
works, `resolve` raises `SandboxUnavailable` naming the cause and the fix: repository code is not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from showcause.core.errors import SandboxUnavailable
from showcause.core.hostproc import HOST_CWD, host_env, which
from showcause.policy import SAFE_LEVELS
from showcause.sandbox.mounts import SANDBOX_ROOT, Mount, bwrap_options, plan

__all__ = ["Probe", "forget_probes", "probe", "resolve", "wrap"]

_NSINIT = Path(__file__).with_name("_nsinit.py")
_NAMESPACES = ["--mount", "--net", "--pid", "--ipc", "--uts", "--cgroup", "--fork", "--kill-child",
               "--propagation", "private"]


@dataclass(frozen=True)
class Probe:
    level: str
    ok: bool
    detail: str = ""          # why it failed: "not installed", or the first line of its error output
    userns: bool = True       # unshare: made a user namespace (False: as root, where they are refused)


def _bwrap_argv(bwrap: str, argv: Sequence[str], ws: Path, out: Path, tmpfs_bytes: int,
                extra: Sequence[Mount] = (), chdir: str = SANDBOX_ROOT) -> list[str]:
    # A new user namespace with no capabilities and an unprivileged uid, even when we run as root.
    return [bwrap, *bwrap_options(plan(ws, out, tmpfs_bytes, extra)), "--chdir", chdir, "--unshare-all",
            "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
            "--hostname", "sandbox", "--", *argv]


def _unshare_argv(unshare: str, userns: bool, argv: Sequence[str], ws: Path, out: Path, tmpfs_bytes: int,
                  root: Path, extra: Sequence[Mount] = (), chdir: str = SANDBOX_ROOT) -> list[str]:
    spec = {"root": str(root), "chdir": chdir,
            "mounts": [m.to_json() for m in plan(ws, out, tmpfs_bytes, extra)]}
    # unshare does not die with its parent by itself; its child dies with it (--kill-child).
    setpriv = which("setpriv")
    prefix = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
    users = ["--user", "--map-root-user"] if userns else []
    return [*prefix, unshare, *users, *_NAMESPACES, "--", sys.executable, "-I", "-S", str(_NSINIT),
            json.dumps(spec), "--", *argv]


def wrap(level: str, argv: Sequence[str], ws: Path, out: Path, tmpfs_bytes: int, root: Path,
         extra: Sequence[Mount] = (), cwd: str = "") -> list[str]:
    """`argv` wrapped for `level` (`root`: an empty directory the unshare level builds its root on; `extra`:
    the project environment's mounts, after the plan's own; `cwd`: where in the copy it starts)."""
    chdir = f"{SANDBOX_ROOT}/{cwd}" if cwd else SANDBOX_ROOT
    if level == "bwrap":
        return _bwrap_argv(which("bwrap") or "bwrap", argv, ws, out, tmpfs_bytes, extra, chdir)
    if level == "unshare":
        found = probe("unshare")
        return _unshare_argv(which("unshare") or "unshare", found.userns, argv, ws, out, tmpfs_bytes, root, extra,
                             chdir)
    return list(argv)


_PROBES: dict[tuple[str, str, int], Probe] = {}


def forget_probes() -> None:
    """Probe again on the next call (tests change PATH to put failing executables first)."""
    _PROBES.clear()


def _try(argv: list[str]) -> str | None:
    """None when `argv` ran and exited 0, else why not."""
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=20, stdin=subprocess.DEVNULL, cwd=HOST_CWD,
                              env=host_env())
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if proc.returncode == 0:
        return None
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    last = lines[-1] if lines else f"exit status {proc.returncode}"
    # "bwrap: …", "unshare: …", "sandbox: …": the level's name is said by the caller.
    return last.split(": ", 1)[1][:300] if last.split(": ", 1)[0] in ("bwrap", "unshare", "sandbox") else last[:300]


def probe(level: str) -> Probe:
    """Whether `level` works here: it runs `true` with the same file-system plan real runs use."""
    binary = which(level) or ""
    key = (level, binary, os.geteuid())
    if key not in _PROBES:
        _PROBES[key] = _probe(level, binary)
    return _PROBES[key]


def _probe(level: str, binary: str) -> Probe:
    if not binary:
        return Probe(level, False, "not installed")
    true = which("true") or "/usr/bin/true"
    with tempfile.TemporaryDirectory(prefix="showcause-probe-") as tmp:
        ws, out, root = Path(tmp, "ws"), Path(tmp, "out"), Path(tmp, "root")
        for d in (ws, out, root):
            d.mkdir()
        if level == "bwrap":
            why = _try(_bwrap_argv(binary, [true], ws, out, 1 << 20))
            return Probe(level, why is None, why or "")
        why = _try(_unshare_argv(binary, True, [true], ws, out, 1 << 20, root))
        if why is None:
            return Probe(level, True)
        if os.geteuid() == 0 and _try(_unshare_argv(binary, False, [true], ws, out, 1 << 20, root)) is None:
            return Probe(level, True, userns=False)   # root, where user namespaces are refused
        return Probe(level, False, why)


def resolve(wanted: str) -> str:
    """The level to run at for the policy's `isolation`; SandboxUnavailable when it does not work here."""
    if wanted == "none":
        return "none"
    candidates = SAFE_LEVELS if wanted == "auto" else (wanted,)
    probes = [probe(level) for level in candidates]
    for found in probes:
        if found.ok:
            return found.level
    raise SandboxUnavailable(_explain(wanted, probes))


def _sysctl(name: str) -> str:
    try:
        return Path("/proc/sys", *name.split(".")).read_text().strip()
    except OSError:
        return ""


def _cause_and_fix(probes: list[Probe]) -> tuple[str, str]:
    root = os.geteuid() == 0
    details = " ".join(p.detail for p in probes).lower()
    if not root and _sysctl("kernel.apparmor_restrict_unprivileged_userns") == "1":
        return ("AppArmor refuses user namespaces to unprivileged users (kernel.apparmor_restrict_unprivileged_userns"
                " = 1, the default on Ubuntu 24.04 and on GitHub's ubuntu-24.04 runners)",
                "allow them: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (in GitHub Actions, a "
                "step before showcause), or run showcause as root")
    if _sysctl("user.max_user_namespaces") == "0":
        return ("user namespaces are switched off (user.max_user_namespaces = 0)",
                "`sudo sysctl -w user.max_user_namespaces=10000`, or run showcause as root")
    if not root and _sysctl("kernel.unprivileged_userns_clone") == "0":
        return ("user namespaces are refused to unprivileged users (kernel.unprivileged_userns_clone = 0)",
                "`sudo sysctl -w kernel.unprivileged_userns_clone=1`, or run showcause as root")
    if root and "operation not permitted" in details:
        return ("namespaces are refused even to root: a container (docker's default seccomp and AppArmor profiles "
                "forbid them)", "run the container with `--security-opt seccomp=unconfined --security-opt "
                "apparmor=unconfined` (or `--privileged`), or run showcause outside it")
    if all(p.detail == "not installed" for p in probes):
        return ("neither bubblewrap nor util-linux unshare is installed",
                "`sudo apt-get install bubblewrap` (Debian/Ubuntu; `make setup` does it when run as root)")
    if not root and ("permission denied" in details or "not permitted" in details):
        return ("user namespaces are refused to this user, and it is not root",
                "allow unprivileged user namespaces on this host, or run showcause as root")
    return ("the sandbox could not be set up", "install bubblewrap (`sudo apt-get install bubblewrap`) or run as root")


def _explain(wanted: str, probes: list[Probe]) -> str:
    cause, fix = _cause_and_fix(probes)
    tried = "; ".join(f"{p.level}: {p.detail}" for p in probes)
    if wanted != "auto":
        head = f"isolation {wanted!r} was asked for but does not work on this host ({tried})"
    else:
        head = f"no sandbox that hides the host works here ({tried})"
    bwrap = next((p for p in probes if p.level == "bwrap" and p.detail == "not installed"), None)
    extra = " Installing bubblewrap (`sudo apt-get install bubblewrap`) may also help." if bwrap and \
        "apt-get install bubblewrap" not in fix else ""
    return (f"{head}, so repository code is not run. Cause: {cause}. Fix: {fix}.{extra} "
            "For code you trust, `--isolation none` runs it without isolation.")
