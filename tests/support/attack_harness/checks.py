"""What is checked after every attack: survivors, marker files, bait, servers, the user's tree."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from attack_harness.bait import Bait
from attack_harness.common import FORCED_ISOLATION, ROOT
from attack_harness.setup import Attack, remove_path, tree_digest

# ----------------------------------------------------------------------------------------------------------------
# Bait: canary secrets, canary files and canary servers
# ----------------------------------------------------------------------------------------------------------------


def marked_processes(marker: str) -> list[int]:
    needle, found, me = marker.encode(), [], os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        with contextlib.suppress(OSError):
            if needle in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


def check_survivors(attack: Attack, when: str) -> list[str]:
    """No process started by the attack (its marker is in the command line) may outlive the call."""
    deadline = time.monotonic() + 3.0
    pids = marked_processes(attack.marker)
    while pids and time.monotonic() < deadline:
        time.sleep(0.2)
        pids = marked_processes(attack.marker)
    if not pids:
        return []
    cmdlines = []
    for pid in pids:
        with contextlib.suppress(OSError):
            cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:200].decode())
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)            # clean up after the escape (only the attack's own processes)
    return [f"{when}: {len(pids)} process(es) of the attack survived the call: {cmdlines}"]


def marker_files(attack: Attack) -> list[Path]:
    places = [Path(tempfile.gettempdir()), Path("/tmp"), Path.home(), Path(sys.prefix), ROOT]
    found: set[Path] = set()
    for place in places:
        with contextlib.suppress(OSError):
            found.update(p for p in place.iterdir() if attack.marker in p.name)
    return sorted(found)




def check_after(attack: Attack, bait: Bait, digest_before: str, modes_before: tuple[int, int]) -> list[str]:
    bad: list[str] = []
    after = attack.spec.get("after", {})
    for raw in after.get("host_paths_absent", []):
        path = Path(raw)
        if os.path.lexists(path):
            bad.append(f"after: {path} exists on the host: {path.read_bytes()[:300]!r}"
                       if path.is_file() else f"after: {path} exists on the host")
            remove_path(path)
    for path in marker_files(attack):
        content = path.read_bytes()[:300] if path.is_file() else b""
        bad.append(f"after: a file named after the attack's marker appeared on the host: {path} {content!r}")
        remove_path(path)
    if bait.canary_file.read_text(encoding="utf-8") != bait.content:
        bad.append(f"after: the /tmp canary file {bait.canary_file} was changed")
    if bait.home_canary.read_text(encoding="utf-8") != bait.content:
        bad.append(f"after: the home canary file {bait.home_canary} was changed")
    assert attack.server is not None and attack.unix is not None
    if attack.server.connections:
        bad.append(f"after: {attack.server.connections} connection(s) reached the canary server on "
                   f"127.0.0.1:{attack.server.port}")
    if attack.unix.connections:
        bad.append(f"after: {attack.unix.connections} connection(s) reached the host's unix sockets")
    if bait.modes() != modes_before:
        bad.append(f"after: the mode of a canary file changed: {modes_before} -> {bait.modes()}")
    cached = sorted(p.name for p in bait.cache.rglob("*") if attack.marker in p.name or p.suffix == ".pth")
    if cached:
        bad.append(f"after: the code under test wrote into the base-result cache: {cached}")
    assert attack.user_tree is not None
    if tree_digest(attack.user_tree) != digest_before:
        bad.append(f"after: the user's tree {attack.user_tree} was modified")
    return bad


def requirement_missing(req: str) -> str | None:
    if req == "node" and not shutil.which("node"):
        return "node is not installed"
    if req == "tsc" and not (ROOT / "toolchain" / "node_modules" / "typescript" / "bin" / "tsc").is_file():
        return "tsc is not installed (make setup)"
    if req == "pyright" and not Path(sys.executable).with_name("pyright").exists():
        return "pyright is not installed"
    if req == "find_symbol":
        try:
            from showcause.tools import find_symbol  # noqa: F401
        except ImportError as exc:
            return f"find_symbol is not importable yet: {exc}"
    if req == "namespaces" and FORCED_ISOLATION == "none":
        # The attack mounts or unmounts: without a private mount namespace it would act on the host itself.
        return "never run with isolation none: the attack would (un)mount on the host"
    return None
