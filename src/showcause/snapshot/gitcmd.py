"""Git subprocess calls isolated from the user's git configuration and from the repository's own.

A repository under review is untrusted: its `.git/config` can name programs for git to run
(`core.fsmonitor`, hooks, diff and merge drivers, pagers). Every call turns those off and runs with a
minimal environment, so no secret of the caller reaches anything git might start.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["git", "git_bytes"]

# Later `-c` values win over the repository's config for these keys.
_SAFE = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
         "-c", "core.quotepath=off", "-c", "diff.external=", "-c", "core.untrackedCache=false",
         "-c", "protocol.allow=never", "-c", "core.sshCommand=false", "-c", "credential.helper="]


def _env(cwd: Path, discover: bool) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.devnull, "LC_ALL": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
           "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1"}
    if not discover:
        env["GIT_CEILING_DIRECTORIES"] = str(cwd.resolve().parent)
    return env


def git(args: list[str], *, cwd: Path, check: bool = True, stdin: str | None = None,
        discover: bool = False) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *_SAFE, *args], cwd=cwd, env=_env(cwd, discover), input=stdin,
                          capture_output=True, text=True, encoding="utf-8", errors="surrogateescape")
    if check and proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, proc.args, proc.stdout, proc.stderr)
    return proc


def git_bytes(args: list[str], *, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *_SAFE, *args], cwd=cwd, env=_env(cwd, True), input=stdin, capture_output=True)
