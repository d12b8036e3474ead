"""`make demo` ends with a command a newcomer can paste: the printed `showcause` exists and runs (it lives in
the checkout's .venv, which is not on PATH after `make demo`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.isolation
def test_the_demos_last_hint_runs_as_printed(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "400"}
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    hint = re.search(r"Try it on your own repository \(from its directory\): (\S+) (review --repo \. .*)$",
                     proc.stdout, re.M)
    assert hint, proc.stdout[-2000:]
    exe = Path(hint.group(1))
    assert exe.is_absolute() and os.access(exe, os.X_OK)
    # The printed command, from a directory with no repository: a clear exit 2, not "command not found".
    ran = subprocess.run([str(exe), *hint.group(2).split()], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path, env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
    assert ran.returncode == 2 and ran.stderr.startswith("showcause: error: "), ran.stderr
