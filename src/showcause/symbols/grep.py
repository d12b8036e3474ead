"""Which indexed files hold a byte string: the candidates of a reference lookup.

ripgrep searches the tree (several threads, about three times faster than reading the files here); it is
asked for raw bytes (``--text``, ``--encoding none``), in every supported file of the tree, hidden or
ignored ones too, so what it reports is exactly the files holding the bytes.  When it is missing, fails on
any file or times out, the files are read here instead (same answer, slower).
"""

from __future__ import annotations

import os
import subprocess

from showcause.core.rg import rg_binary, rg_env

from .languages import EXTENSIONS, SKIP_DIRS, read_source

__all__ = ["files_holding"]

_TIMEOUT = 60.0
_GLOBS = [arg for ext in EXTENSIONS for arg in ("--iglob", f"*{ext}")] + [
    arg for name in sorted(SKIP_DIRS) for arg in ("--glob", f"!{name}")
]


def _rg(base: str, needle: bytes) -> set[str] | None:
    try:
        binary = rg_binary()
        pattern = needle.decode("utf-8")
    except (RuntimeError, UnicodeDecodeError):
        return None
    args = [
        binary, "--no-config", "--files-with-matches", "--fixed-strings", "--text", "--encoding", "none",
        "--no-ignore", "--hidden", "--no-follow", "--no-messages", "--null", *_GLOBS, "-e", pattern, "--", ".",
    ]  # fmt: skip
    try:
        proc = subprocess.run(
            args, cwd=base, env=rg_env(), stdin=subprocess.DEVNULL, capture_output=True, timeout=_TIMEOUT
        )
    except (OSError, ValueError, subprocess.TimeoutExpired):  # ValueError: a NUL byte in the pattern
        return None
    if proc.returncode not in (0, 1):  # 2: some file could not be searched, or the pattern was refused
        return None
    return {os.fsdecode(path).removeprefix("./") for path in proc.stdout.split(b"\0") if path}


def files_holding(base: str, files: list[str], needle: bytes) -> list[str]:
    """The files of ``files`` (paths relative to the directory ``base``) whose content holds ``needle``,
    in the order given.  A file that cannot be read holds nothing."""
    if needle:
        found = _rg(base, needle)
        if found is not None:
            return [rel for rel in files if rel in found]
    out: list[str] = []
    for rel in files:
        data = read_source(f"{base}/{rel}")
        if data is not None and needle in data:
            out.append(rel)
    return out
