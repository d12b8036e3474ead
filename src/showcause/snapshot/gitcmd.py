"""Git subprocess calls isolated from the user's git configuration and repository discovery."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["git", "git_bytes"]


def _env(cwd: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    # No user/system config (aliases, external diff drivers, textconv) and no discovery above `cwd`.
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
                "GIT_CEILING_DIRECTORIES": str(cwd.resolve().parent), "LC_ALL": "C"})
    return env


def git(args: list[str], *, cwd: Path, check: bool = True, stdin: str | None = None,
        discover: bool = False) -> subprocess.CompletedProcess[str]:
    env = _env(cwd)
    if discover:
        env.pop("GIT_CEILING_DIRECTORIES")
    proc = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, encoding="utf-8", errors="surrogateescape")
    if check and proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, proc.args, proc.stdout, proc.stderr)
    return proc


def git_bytes(args: list[str], *, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = _env(cwd)
    env.pop("GIT_CEILING_DIRECTORIES")
    return subprocess.run(["git", *args], cwd=cwd, env=env, input=stdin, capture_output=True)
