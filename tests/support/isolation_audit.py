"""Which tests can depend on the isolation level: the `isolation` marker, and the audit that keeps it true.

`make test-without-bwrap` runs only the tests marked `isolation` (a module's `pytestmark` or a test's own
marker): they are the ones whose outcome can change when bubblewrap fails. The audit makes that set
complete by construction. During every run it puts three executables first on PATH, named `prlimit`,
`bwrap` and `unshare`, which note that they ran and then exec the real program found when the run began.
Every sandboxed process starts through one of them (`sandbox/runner.py` wraps each run in `prlimit`, and the
level probes start `bwrap` and `unshare`), from the test's own process or any process below it (the CLI, the
MCP server). The test is found by walking up the parent chain to a pytest process, which names the test it
is running in a file. A test that led to such a start, or that asked the sandbox for its level in-process,
and is not marked `isolation`, fails with the reason: nothing can slip out of the reduced pass.

`SHOWCAUSE_ISOLATION_AUDIT=0` turns the audit off (for a quick local run that needs no guarantee).
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

__all__ = ["MARKER", "PROGRAMS", "AuditPlugin", "install", "launched_by", "uninstall", "watch_levels"]

MARKER = "isolation"
PROGRAMS = ("prlimit", "bwrap", "unshare")
_ENV_DIR = "SHOWCAUSE_ISOLATION_AUDIT_DIR"
T = TypeVar("T")

# The shim: find the nearest ancestor that is a pytest process running a test, note the program there,
# then become the real program. Pure sh (no fork per ancestor); /proc/<pid>/status gives the parent.
_SHIM = """#!/bin/sh
pid=$$
while [ "${{pid:-0}}" -gt 1 ]; do
  if [ -f {audit}/current.$pid ]; then
    printf '%s\\n' {name} >> {audit}/launched.$pid
    break
  fi
  next=
  while read -r key value rest; do
    if [ "$key" = "PPid:" ]; then next=$value; break; fi
  done < /proc/$pid/status 2>/dev/null
  pid=$next
done
exec {real} "$@"
"""


def _write_shims(audit: Path, path: str) -> Path:
    """Shims for each program found on `path`, in `audit/bin`; returns that directory."""
    bindir = audit / "bin"
    bindir.mkdir()
    for name in PROGRAMS:
        real = shutil.which(name, path=path)
        if real is None:
            continue   # not on this host: nothing can start it, so nothing to note
        shim = bindir / name
        shim.write_text(_SHIM.format(audit=shlex.quote(str(audit)), name=name, real=shlex.quote(real)),
                        encoding="utf-8")
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bindir


def install() -> Path | None:
    """In the first pytest process (xdist's controller, or a plain run): make the audit directory and put the
    shims first on PATH. Workers inherit both through the environment. None when the audit is off."""
    if os.environ.get("SHOWCAUSE_ISOLATION_AUDIT") == "0":
        return None
    if _ENV_DIR in os.environ:
        return Path(os.environ[_ENV_DIR])
    audit = Path(tempfile.mkdtemp(prefix="showcause-isolation-audit-"))
    audit.chmod(0o755)   # tests that drop to uid 65534 start the shims too
    # An outer run's shims (tests/hosts starts pytest again) are left out: each run notes its own starts.
    path = os.pathsep.join(d for d in os.environ.get("PATH", os.defpath).split(os.pathsep)
                           if not Path(d).parent.name.startswith("showcause-isolation-audit-"))
    bindir = _write_shims(audit, path)
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"
    os.environ[_ENV_DIR] = str(audit)
    return audit


def uninstall(audit: Path) -> None:
    """In the process that installed it: remove the audit directory (shims and notes)."""
    shutil.rmtree(audit, ignore_errors=True)


def launched_by(audit: Path, pid: int) -> list[str]:
    """The programs the test running in process `pid` has started so far (and forget them)."""
    notes = audit / f"launched.{pid}"
    try:
        names = notes.read_text(encoding="utf-8").split()
    except FileNotFoundError:
        return []
    notes.unlink()
    return names


class AuditPlugin:
    """Per test: name it for the shims, watch in-process level look-ups, and fail an unmarked test that
    depended on the isolation level."""

    def __init__(self, audit: Path) -> None:
        self.audit = audit
        self.asked_level = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        current = self.audit / f"current.{os.getpid()}"
        current.write_text(item.nodeid, encoding="utf-8")
        launched_by(self.audit, os.getpid())   # a start after the previous test ended is not this test's
        self.asked_level = False
        try:
            yield
        finally:
            current.unlink(missing_ok=True)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
        outcome = yield
        if call.when != "teardown":
            return
        # After every fixture's teardown, so a start while a fixture stops counts as the test's too.
        started = sorted(set(launched_by(self.audit, os.getpid())))
        if item.get_closest_marker(MARKER) is not None or not (started or self.asked_level):
            return
        how = f"started {', '.join(started)}" if started else "asked the sandbox for its isolation level"
        report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} {how}, so its outcome can depend on the isolation level, but it is not "
                           f"marked `{MARKER}`: `make test-without-bwrap` would not run it. Mark the test or its "
                           f"module (`pytestmark = pytest.mark.{MARKER}`).")


def watch_levels(plugin: AuditPlugin) -> None:
    """Note in-process look-ups of the level (a cached probe starts no program but still decides): the
    level's two entry points, wherever a module imported them by name."""
    import importlib

    for module_name, name in (("showcause.sandbox.levels", "resolve"), ("showcause.sandbox.runner", "resolve"),
                              ("showcause.sandbox.levels", "probe"), ("showcause.sandbox.status", "probe")):
        module = importlib.import_module(module_name)
        setattr(module, name, _noting(plugin, getattr(module, name)))


def _noting(plugin: AuditPlugin, original: Callable[[str], T]) -> Callable[[str], T]:
    def look_up(level: str) -> T:
        plugin.asked_level = True
        return original(level)

    return look_up
