"""On a terminal a review says what it is doing on stderr (each tool call on each tree, with the time since it
began); piped or in CI, stderr stays quiet. A real pseudo-terminal, the real CLI."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
CASE = ROOT / "examples" / "demo-case"
STEP = re.compile(r"^showcause \[ *\d+\.\d s\] T\d+ (run_test|typecheck|search) on (base|head): (started|done)", re.M)


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:   # EIO: the other side is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.isolation
def test_a_review_on_a_terminal_shows_its_steps_and_a_piped_one_does_not(tmp_path: Path) -> None:
    env = {**os.environ, "SHOWCAUSE_CACHE_DIR": str(tmp_path / "cache")}
    leader, follower = pty.openpty()
    proc = subprocess.Popen([SHOWCAUSE, "review", "--case", str(CASE), "--format", "json"], stdout=subprocess.PIPE,
                            stderr=follower, stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    shown = _read_all(leader)
    out, _ = proc.communicate(timeout=300)
    os.close(leader)
    assert proc.returncode == 1 and out.startswith(b"{")          # the report itself is untouched
    steps = STEP.findall(shown)
    assert ("run_test", "head", "started") in steps and ("run_test", "head", "done") in steps, shown
    piped = subprocess.run([SHOWCAUSE, "review", "--case", str(CASE), "--format", "json"], capture_output=True,
                           text=True, env=env, timeout=300)
    assert piped.returncode == 1 and STEP.search(piped.stderr) is None and "showcause [" not in piped.stderr
