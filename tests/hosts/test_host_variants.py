"""The sandbox suites again on the other hosts showcause meets: as an unprivileged uid, and as root where
user namespaces are refused.

1. As uid/gid 65534 (`setpriv`), no capabilities, as CI runners and laptops run showcause. That uid cannot
   traverse root's home, where the interpreter often lives (pyenv): so the run gets its own mount namespace
   in which each such directory is a tmpfs holding binds of exactly what the run needs (nothing on the host
   changes).
2. As root on a host that refuses user namespaces even to root (`tests/support/degraded/root-without-userns/`: real
   `bwrap` and `unshare` executables that fail there as the real ones do): the `unshare` level then builds
   its root without a user namespace of its own.
Every test of the attack corpus, the runner, the signal and the fail-closed files must pass there too; their
own level detection decides which levels run.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[2]
SUITES = ["tests/test_attacks.py", "tests/test_sandbox_runner.py", "tests/test_signals.py", "tests/test_fail_closed.py"]
UID = 65534


def _closed_ancestor(path: str) -> str | None:
    """The top-most ancestor of `path` that `UID` may not traverse, if any."""
    parts = Path(path).parts
    for i in range(2, len(parts) + 1):
        candidate = os.path.join(*parts[:i])
        if not os.stat(candidate).st_mode & stat.S_IXOTH:
            return candidate
    return None


def _script(needed: list[str], hold: Path) -> str:
    """Shell run as root in a private mount namespace: open each closed ancestor with binds of `needed`."""
    lines = ["set -e"]
    closed = sorted({a for a in map(_closed_ancestor, needed) if a})
    for n, top in enumerate(closed):
        inside = sorted({p for p in needed if p.startswith(top + "/")})
        for m, path in enumerate(inside):
            lines += [f"mkdir -p {hold}/{n}-{m}", f"mount --bind '{path}' {hold}/{n}-{m}"]
        lines.append(f"mount -t tmpfs -o mode=755 tmpfs '{top}'")
        for m, path in enumerate(inside):
            lines += [f"mkdir -p '{path}'", f"mount --move {hold}/{n}-{m} '{path}'"]
    lines.append('exec "$@"')
    return "\n".join(lines)


@pytest.mark.timeout(1500)
def test_sandbox_suites_pass_as_an_unprivileged_uid():
    if os.geteuid() != 0:
        # Already unprivileged: the suites above ran as this uid in this very session.
        pytest.skip("running as an unprivileged uid already: the sandbox suites of this session ran as it")
    for tool in ("unshare", "setpriv", "mount"):
        assert shutil.which(tool), f"{tool} (util-linux) is needed to drop to an unprivileged uid"
    # Not under pytest's own temp root: that is private to root (0700).
    work = Path(tempfile.mkdtemp(prefix="showcause-unprivileged-", dir="/tmp"))
    try:
        _run_as_nobody(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_as_nobody(work: Path) -> None:
    home, tmp, hold = work / "home", work / "tmp", work / "hold"
    for d in (home, tmp, hold):
        d.mkdir(parents=True)
    os.chmod(work, 0o755)
    for d in (home, tmp):
        os.chown(d, UID, UID)
    needed = sorted({sys.base_prefix, sys.prefix, os.path.realpath(sys.executable), str(ROOT)})
    # Nested binds on purpose (the interpreter's bin/ inside its prefix): the sandbox must cope with a
    # toolchain that holds mount points of its own.
    needed = sorted({p if os.path.isdir(p) else os.path.dirname(p) for p in needed})
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TMPDIR": str(tmp),
           "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    prefix = ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", _script(needed, hold), "sh",
              "setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", "--inh-caps=-all",
              "--bounding-set=-all", "--"]
    _suites_pass(prefix, env, tmp)


def _suites_pass(prefix: list[str], env: dict[str, str], tmp: Path) -> None:
    """Run the sandbox suites behind `prefix`; every test passes and the whole corpus ran."""
    report = tmp / "junit.xml"
    argv = [*prefix, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
            f"--basetemp={tmp / 'pytest'}", *SUITES]
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1400)
    tail = (proc.stdout + proc.stderr)[-6000:]
    assert report.is_file(), tail
    suite = ET.parse(report).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    counts = {k: int(suite.get(k, "0")) for k in ("tests", "failures", "errors", "skipped")}
    assert proc.returncode == 0 and counts["failures"] == counts["errors"] == 0, tail
    # The whole corpus ran (at least one level for every attack), not only the refusals.
    ran = {tc.get("name", "").split("/", 1)[-1].rstrip("]") for tc in suite.iter("testcase")
           if tc.get("name", "").startswith(("test_attack[bwrap/", "test_attack[unshare/")) and not len(tc)}
    attacks = {p.name for p in (ROOT / "sandbox" / "attacks").iterdir() if p.is_dir() and p.name[:2].isdigit()}
    assert attacks <= ran, sorted(attacks - ran)


@pytest.mark.timeout(1500)
def test_sandbox_suites_pass_as_root_without_user_namespaces():
    if os.geteuid() != 0:
        pytest.skip("only root can make the sandbox without a user namespace; this uid runs the suites as itself")
    work = Path(tempfile.mkdtemp(prefix="showcause-no-userns-", dir="/tmp"))
    try:
        _run_without_userns(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_without_userns(tmp_path: Path) -> None:
    degraded = ROOT / "tests" / "support" / "degraded" / "root-without-userns"
    env = {**os.environ, "PATH": f"{degraded}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTEST_CURRENT_TEST", None)
    probe = subprocess.run([sys.executable, "-c", "from showcause.sandbox.levels import probe; "
                            "p = probe('unshare'); print(p.ok, p.userns)"], env=env, capture_output=True, text=True)
    assert probe.stdout.split() == ["True", "False"], probe.stdout + probe.stderr   # the variant under test
    (tmp_path / "tmp").mkdir()
    _suites_pass([], {**env, "TMPDIR": str(tmp_path / "tmp")}, tmp_path / "tmp")
