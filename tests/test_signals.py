"""SIGINT and SIGTERM during a review: it ends within 2 s, kills everything it started, leaves nothing behind."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from builders import make_case
from showcause.policy import SAFE_LEVELS
from showcause.sandbox.levels import probe

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).with_name("showcause"))
LEVELS = [*(lv for lv in SAFE_LEVELS if probe(lv).ok), "none"]   # every level that runs code here


def _hanging_case(tmp: Path, marker: str) -> Path:
    """A change whose test starts a detached helper named after `marker`, then hangs."""
    test = ("import subprocess, time\n\n\ndef test_hang():\n"
            f"    subprocess.Popen(['setsid', 'sh', '-c', 'sleep 600; :', '{marker}'])\n"
            f"    subprocess.Popen(['sh', '-c', 'sleep 600; :', '{marker}-child'])\n"
            "    time.sleep(600)\n")
    base = {"pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
            "src/m.py": "X = 1\n", "tests/test_m.py": "def test_ok():\n    assert True\n"}
    return make_case(tmp / "case", base, {"tests/test_hang.py": test}, checks={"tests": [], "typecheck": "none"})


def _marked(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("level", LEVELS)
def test_a_signal_ends_the_review_and_everything_it_started(tmp_path: Path, level: str, sig: signal.Signals):
    marker = "SCSIG" + secrets.token_hex(6)
    case = _hanging_case(tmp_path, marker)
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    out = tmp_path / "review.json"
    env = {**os.environ, "TMPDIR": str(private_tmp), "SHOWCAUSE_NO_CACHE": "1"}
    proc = subprocess.Popen([SHOWCAUSE, "review", "--case", str(case), "--format", "json", "--output", str(out),
                             "--isolation", level], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(_marked(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_marked(marker)) >= 2, "the hanging test never started"
        sent = time.monotonic()
        proc.send_signal(sig)
        rc = proc.wait(timeout=10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
        _, stderr = proc.communicate()
    survivors = _marked(marker)
    for pid in survivors:   # clean up after a failure, then report it
        os.kill(pid, signal.SIGKILL)
    assert rc == 128 + sig and took < 2.0, (rc, took, stderr)
    assert survivors == []
    assert not out.exists() and not list(tmp_path.glob(".review.json*"))
    assert sorted(os.listdir(private_tmp)) == []   # no snapshot, run copy or probe directory left
    assert f"interrupted by signal {int(sig)}" in stderr.decode() and "Traceback" not in stderr.decode()
