"""`showcause doctor` (what this host gives a review, each missing piece with its fix) and `showcause setup`
where npm is missing. The real install from npm's registry is in tests/test_wheel.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from isolation import AUTO_LEVEL, fake_host_env

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
NAMES = ["isolation", "node", "npm", "pyright", "tsc", "pytest", "cache"]


def sc(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=120, env=env)


def test_doctor_names_every_need_and_exits_by_isolation(tmp_path: Path):
    env = {**os.environ, "SHOWCAUSE_CACHE_DIR": str(tmp_path / "cache")}
    here = sc("doctor", env=env)
    lines = here.stdout.splitlines()
    assert [line.split()[1] for line in lines if not line.startswith(" ")][:7] == NAMES, here.stdout
    assert here.returncode == (0 if AUTO_LEVEL else 3) and "Traceback" not in here.stderr
    assert f"cache      {tmp_path / 'cache'}" in here.stdout
    # Where no level hides the host, a review cannot run: exit 3, and the line says why and what to do.
    blocked = sc("doctor", env=fake_host_env("docker", env))
    assert blocked.returncode == 3, blocked.stdout
    assert blocked.stdout.startswith("MISSING isolation ") and "\n            fix: " in blocked.stdout
    assert blocked.stdout.rstrip().endswith("reviews cannot run here: isolation missing")


def test_setup_without_npm_says_what_to_install(tmp_path: Path):
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "SHOWCAUSE_CACHE_DIR": str(tmp_path / "cache")}
    r = sc("setup", env=env)
    assert r.returncode == 3 and "npm not found: install Node.js 20+ with npm" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "cache" / "toolchain").exists()
    doctor = sc("doctor", env=env)
    assert "no  npm        not found on PATH" in doctor.stdout and "fix: install npm" in doctor.stdout
