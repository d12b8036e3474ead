"""Confinement of model-supplied paths to a workspace root.

Every path that arrives from a model or an MCP client passes through `confine` before any file is
touched: relative only, no `..` escape, no `.git`, no symlink that resolves outside the root.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from showcause.core.errors import ToolArgumentError

__all__ = ["confine", "is_binary", "normalize_relpath"]

_FORBIDDEN_PARTS = {".git"}


def normalize_relpath(raw: object) -> str:
    """Validate the shape of a relative path and return it normalized ('' means the root)."""
    if not isinstance(raw, str):
        raise ToolArgumentError(f"path must be a string, got {type(raw).__name__}")
    if "\x00" in raw or any(ord(c) < 32 for c in raw):
        raise ToolArgumentError("path contains control characters")
    text = raw.strip().replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":") or text.startswith("~"):
        raise ToolArgumentError(f"absolute paths are not allowed: {raw!r} (use a path relative to the repository root)")
    norm = posixpath.normpath(text) if text else "."
    parts = norm.split("/")
    if norm == ".." or norm.startswith("../") or ".." in parts:
        raise ToolArgumentError(f"path escapes the repository root: {raw!r}")
    if _FORBIDDEN_PARTS.intersection(parts):
        raise ToolArgumentError(f"path refused: {raw!r} (.git is not readable)")
    return "" if norm == "." else norm


def confine(root: Path, raw: object, *, must_exist: bool = True) -> tuple[Path, str]:
    """Return (absolute path, normalized relative path) inside `root`, or raise ToolArgumentError.

    Symlinks anywhere along the path are resolved; the result must stay inside the resolved root.
    """
    rel = normalize_relpath(raw)
    real_root = Path(os.path.realpath(root))
    candidate = real_root / rel if rel else real_root
    resolved = Path(os.path.realpath(candidate))
    if resolved != real_root and real_root not in resolved.parents:
        raise ToolArgumentError(f"path refused: {rel!r} resolves outside the repository root")
    inner = resolved.relative_to(real_root).as_posix()
    if _FORBIDDEN_PARTS.intersection(inner.split("/")):
        raise ToolArgumentError(f"path refused: {rel!r} resolves into .git")
    if must_exist and not resolved.exists():
        raise ToolArgumentError(f"no such file or directory: {rel or '.'!r}")
    return resolved, rel


def is_binary(path: Path, sniff: int = 8192) -> bool:
    """A NUL byte in the first block marks a file as binary (git and ripgrep use the same rule)."""
    with path.open("rb") as fh:
        return b"\x00" in fh.read(sniff)
