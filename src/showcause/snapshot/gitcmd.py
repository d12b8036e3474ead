"""Git subprocess calls isolated from the user's git configuration and from the repository's own.

A repository under review is untrusted: its `.git/config` can name programs for git to run
(`core.fsmonitor`, hooks, diff and merge drivers, pagers, filters, an askpass helper, a promisor remote
whose URL or `uploadpack` is a command). Every call runs the `git` found on an absolute PATH
(:mod:`showcause.core.hostproc`) with a minimal environment, so no secret of the caller reaches anything git
might start, and turns those programs off:

- `-c` values below win over the repository's config for their keys;
- no transport at all (`GIT_ALLOW_PROTOCOL` empty overrides any `protocol.<name>.allow` of the repository,
  which `protocol.allow=never` alone does not), so a missing object of a partial clone cannot make git
  fetch from a remote of the repository's choosing; newer gits are also told not to try
  (`GIT_NO_LAZY_FETCH`);
- filters (`filter.<driver>.clean`/`smudge`/`process`, named by `.gitattributes`) and textconv run only
  when git converts work-tree content: the commands used here never do (`ls-files`, `ls-tree`,
  `cat-file --batch` without `--filters`, `rev-parse`, `diff --no-index --no-textconv --no-ext-diff` and
  `apply` in snapshot trees, which have no repository and so no driver).

git runs in the directory it is asked about (the repository, or a snapshot tree): that is its subject, and
nothing there is a program once the settings above hold.
"""

from __future__ import annotations

import errno
import subprocess
from pathlib import Path

from showcause.core.hostproc import host_env, which

__all__ = ["git", "git_bytes"]

# Later `-c` values win over the repository's config for these keys.
_SAFE = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
         "-c", "core.quotepath=off", "-c", "diff.external=", "-c", "core.untrackedCache=false",
         "-c", "protocol.allow=never", "-c", "core.sshCommand=false", "-c", "credential.helper=",
         # No transport can start (see the module docstring); these would run only in one.
         "-c", "core.askPass=", "-c", "core.alternateRefsCommand="]


def _binary() -> str:
    found = which("git")
    if found is None:
        raise FileNotFoundError(errno.ENOENT, "git is not installed (not on PATH)", "git")
    return found


def _env(cwd: Path, discover: bool) -> dict[str, str]:
    env = host_env({"HOME": "/dev/null", "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
                    "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "GIT_OPTIONAL_LOCKS": "0",
                    "GIT_NO_REPLACE_OBJECTS": "1", "GIT_ALLOW_PROTOCOL": "", "GIT_NO_LAZY_FETCH": "1"})
    if not discover:
        env["GIT_CEILING_DIRECTORIES"] = str(cwd.resolve().parent)
    return env


def git(args: list[str], *, cwd: Path, check: bool = True, stdin: str | None = None,
        discover: bool = False) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([_binary(), *_SAFE, *args], cwd=cwd, env=_env(cwd, discover), input=stdin,
                          capture_output=True, text=True, encoding="utf-8", errors="surrogateescape")
    if check and proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, proc.args, proc.stdout, proc.stderr)
    return proc


def git_bytes(args: list[str], *, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([_binary(), *_SAFE, *args], cwd=cwd, env=_env(cwd, True), input=stdin,
                          capture_output=True)
