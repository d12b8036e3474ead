"""Real virtualenvs with packages from PyPI, and the `showcause` executable run without an active VIRTUAL_ENV."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["SHOWCAUSE", "cli", "make_venv", "review", "run_test_output"]

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")


def make_venv(where: Path, *packages: str) -> Path:
    """A virtualenv of this interpreter's base installation at `where`, with `packages` installed by pip
    (showcause's own pip, `--python`: the new virtualenv gets no pip of its own, so it starts in 0.1 s)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    if packages:
        subprocess.run([sys.executable, "-m", "pip", "--python", str(where / "bin" / "python"), "install", "-q",
                        "--disable-pip-version-check", *packages], check=True, timeout=900,
                       stdout=subprocess.DEVNULL)
    return where


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`showcause ARGS` with no VIRTUAL_ENV (unless `env` sets one), from a neutral directory."""
    base = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=600, cwd="/",
                          env={**base, **(env or {})})


def review(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """A mechanical review as JSON: (exit status, the report)."""
    proc = cli("review", "--format", "json", *args, env=env)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def run_test_output(doc: dict[str, Any]) -> str:
    """The text of a review's run_test call(s)."""
    return "\n".join(c["output"] for c in doc["tool_calls"] if c["tool"] == "run_test")
