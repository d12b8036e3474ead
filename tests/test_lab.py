"""The lab (`showcause bench`) is a command family the CLI loads from its entry point; without the `bench`
extra it says how to install it. A real `showcause` process whose interpreter cannot import matplotlib (a
`sitecustomize` that blocks it, as an install without the extra lacks it); tests/test_wheel.py checks the same
on a real install of the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from showcause.cli.plugins import COMMANDS

SHOWCAUSE = str(Path(sys.executable).with_name("showcause"))
REPO = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, *argv: str, block: bool) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if block:
        (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['matplotlib'] = None\n")
        env["PYTHONPATH"] = str(tmp_path)
    return subprocess.run([SHOWCAUSE, *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


def test_the_lab_is_a_command_family_from_its_entry_point():
    assert COMMANDS.names() == ["bench"]


def test_without_the_extra_bench_says_how_to_install_it(tmp_path: Path):
    done = _run(tmp_path, "bench", str(REPO / "repo_cases"), "--modes", "mechanical", block=True)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("showcause: error: showcause bench needs the bench extra (matplotlib not installed): "
                           "pip install 'showcause[bench]'\n")
    # The judge itself does not need it.
    modes = _run(tmp_path, "modes", block=True)
    assert modes.returncode == 0 and "mechanical" in modes.stdout


def test_with_the_extra_bench_is_the_lab(tmp_path: Path):
    done = _run(tmp_path, "bench", "--help", block=False)
    assert done.returncode == 0 and "merge" in done.stdout and "compare" in done.stdout
