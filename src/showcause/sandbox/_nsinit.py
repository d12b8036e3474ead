"""Inside the fresh namespaces `unshare` made: build the minimal root, enter it, drop every privilege, run.

Started as ``python -I -S _nsinit.py SPEC -- ARGV…`` (the standard library only: nothing of the reviewed
tree, of the caller's environment or of site-packages is importable). It runs as PID 1 of a new PID
namespace, as uid 0 of a new user namespace (or as real root where user namespaces are refused to root),
in a private mount namespace and an empty network namespace. In order:

1. a small tmpfs becomes the new root; the plan of `mounts.py` is built in it (read-only binds keep the
   flags the kernel locks on them, and add nosuid/nodev);
2. loopback comes up, the hostname becomes ``sandbox``, the new root is made read-only;
3. ``pivot_root`` into it and the old root is detached, so no path leads back to the host;
4. a nested user namespace maps the process to uid/gid 65534 (as bubblewrap's ``--uid 65534`` does), then
   every capability is dropped for good (bounding, ambient, inheritable, effective, permitted sets;
   ``no_new_privs``; securebits locked);
5. ARGV runs as a child; this process reaps orphans and exits with its status, which ends the namespace
   and kills whatever is left in it.

Any failure exits 125 with one line on stderr: the caller then refuses to run repository code.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import re
import socket
import struct
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
CLONE_NEWUSER = 0x10000000
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
PR_SET_SECUREBITS = 28
# SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE and their locks.
_SECUREBITS = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41}
# statvfs flags whose mount flags the kernel locks on a bind made in a user namespace.
_LOCKED = ((os.ST_RDONLY, MS_RDONLY), (os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV),
           (os.ST_NOEXEC, MS_NOEXEC), (1024, MS_NOATIME), (2048, MS_NODIRATIME), (4096, MS_RELATIME))
_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")

_libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    pass


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(err)}")


def _mount(src: str | None, dst: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (src, dst, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {src} on {dst}")


def _locked_flags(path: str) -> int:
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in _LOCKED if flags & st)


def _target(root: str, dst: str) -> str:
    return os.path.join(root, dst.lstrip("/"))


def _mount_point(path: str, is_dir: bool) -> None:
    if is_dir:
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.lexists(path):
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


def _unescape(field: str) -> str:
    """A path of /proc/self/mountinfo (space, tab, newline and backslash are octal escapes there)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _mounts_below(target: str) -> list[str]:
    """`target` and every mount point below it, outermost first."""
    with open("/proc/self/mountinfo") as fh:
        points = [_unescape(line.split()[4]) for line in fh]
    return sorted({p for p in points if p == target or p.startswith(target + "/")}, key=len)


def _bind(src: str, target: str, readonly: bool) -> None:
    _mount_point(target, os.path.isdir(src))
    # Recursive: a user namespace refuses a plain bind of a tree holding mounts of its own (it would
    # reveal what they cover). Each mount of the copy is then remounted, so none below stays writable.
    _mount(src, target, None, MS_BIND | MS_REC)
    extra = MS_RDONLY if readonly else 0
    for point in _mounts_below(target):
        _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | extra | _locked_flags(point))


def _tmpfs(target: str, size: int, mode: str) -> None:
    os.makedirs(target, exist_ok=True)
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"mode={mode},size={max(size, 65536)}")


def _dev(target: str) -> None:
    _tmpfs(target, 1 << 20, "0755")
    for name in _DEVICES:
        if os.path.exists(f"/dev/{name}"):
            node = os.path.join(target, name)
            _mount_point(node, False)
            _mount(f"/dev/{name}", node, None, MS_BIND)
    for name, link in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                       ("stderr", "/proc/self/fd/2")):
        os.symlink(link, os.path.join(target, name))
    _tmpfs(os.path.join(target, "shm"), 64 << 20, "1777")
    # A private pty instance, as bubblewrap gives (test suites of terminal programs need one); optional.
    pts = os.path.join(target, "pts")
    os.makedirs(pts)
    try:
        _mount("devpts", pts, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
        os.symlink("pts/ptmx", os.path.join(target, "ptmx"))
    except SetupError:
        pass


def _apply(root: str, step: dict[str, object]) -> None:
    op, dst, src, size = str(step["op"]), str(step["dst"]), str(step["src"]), int(str(step["size"]))
    target = _target(root, dst)
    if op in ("ro", "rw"):
        _bind(src, target, op == "ro")
    elif op == "knob":
        if os.path.lexists(target):
            _bind(target, target, True)
    elif op == "tmpfs":
        _tmpfs(target, size, "1777")
    elif op == "proc":
        os.makedirs(target, exist_ok=True)
        _mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    elif op == "dev":
        _dev(target)
    elif op == "dir":
        os.makedirs(target, mode=0o755, exist_ok=True)
    elif op == "symlink":
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(src, target)
    elif op == "ro-root":
        pass   # _setup remounts the root read-only once every step is in place
    else:
        raise SetupError(f"unknown mount step {op!r}")


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(s, 0x8913, req))[1]          # SIOCGIFFLAGS
        fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))       # SIOCSIFFLAGS, IFF_UP


def _pivot(root: str) -> None:
    os.chdir(root)
    pivot = getattr(_libc, "pivot_root", None)
    if pivot is not None:
        rc = pivot(b".", b".")
    else:
        number = _PIVOT_ROOT.get(os.uname().machine)
        if number is None:
            raise SetupError(f"pivot_root: unknown on {os.uname().machine}")
        rc = _libc.syscall(number, b".", b".")
    _check(rc, "pivot_root")
    # The old root now lies on top of the new one: detach it, and nothing of the host is reachable.
    _check(_libc.umount2(b".", MNT_DETACH), "detach the old root")
    os.chdir("/")


def _become_nobody() -> None:
    """A nested user namespace in which this process is uid/gid 65534, as under bubblewrap."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWUSER), "nested user namespace")
    for name, text in (("uid_map", f"65534 {uid} 1\n"), ("setgroups", "deny"), ("gid_map", f"65534 {gid} 1\n")):
        with open(f"/proc/self/{name}", "w") as fh:
            fh.write(text)


def _drop_privileges() -> None:
    _check(_libc.prctl(PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0), "securebits")
    with open("/proc/sys/kernel/cap_last_cap") as fh:
        last = int(fh.read())
    for cap in range(last + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)       # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()                      # effective, permitted, inheritable x 2 words: none
    _check(_libc.capset(header, data), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def _setup(spec: dict[str, object]) -> None:
    root = str(spec["root"])
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _tmpfs(root, 1 << 20, "0755")
    steps = spec["mounts"]
    assert isinstance(steps, list)
    for step in steps:
        _apply(root, step)
    _loopback_up()
    _check(_libc.sethostname(b"sandbox", 7), "sethostname")
    _mount(None, root, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    _pivot(root)
    _become_nobody()
    _drop_privileges()


def _run(argv: list[str], cwd: str) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, dict(os.environ))
        except OSError as exc:
            sys.stderr.write(f"sandbox: cannot run {argv[0]}: {exc.strerror}\n")
        os._exit(127)
    while True:   # PID 1 reaps every orphan until the command itself ends
        try:
            done, status = os.wait()
        except ChildProcessError:
            return 125
        if done == pid:
            return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: _nsinit.py SPEC -- ARGV...\n")
        return 125
    try:
        spec = json.loads(argv[1])
        _setup(spec)
    except (SetupError, OSError, ValueError, KeyError, AssertionError) as exc:
        sys.stderr.write(f"sandbox: set-up failed: {exc}\n")
        return 125
    return _run(argv[3:], str(spec.get("chdir", "/")))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
