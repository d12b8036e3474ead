"""Results on the base tree, cached by a content hash of that tree.

CI reviews many changes against the same base: the base side of `run_test` and `typecheck` is then
computed once. Only complete runs are stored (never a timeout or a crash); a test a later review finds
flaky on that tree (`run_test` re-runs a suspected regression) is marked in the entry, and its stored pass
is never served as a pass again. The key covers the tree's
content, the target, the tool versions, the isolation level the run had and the whole policy in force.
Entries are stored and served only at a level that hides the host: there the code under test cannot
reach the cache (in the user's home) to poison later reviews.
Set SHOWCAUSE_CACHE_DIR to move the cache, SHOWCAUSE_NO_CACHE=1 to disable it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from showcause.core import jsonsafe
from showcause.core.cachedir import cache_root
from showcause.core.errors import SandboxUnavailable
from showcause.core.version import __version__
from showcause.policy import SAFE_LEVELS, Policy
from showcause.sandbox.runner import available_isolation

__all__ = ["cache_get", "cache_put", "code_digest", "tree_hash"]

_TREE_HASHES: dict[tuple[str, int], str] = {}


def _cache_dir() -> Path | None:
    if os.environ.get("SHOWCAUSE_NO_CACHE"):
        return None
    return cache_root() / "base"


def _safe_level(policy: Policy) -> str | None:
    """The level runs get under `policy`, if it hides the host (else the cache is neither read nor written)."""
    try:
        level = available_isolation(policy)
    except SandboxUnavailable:
        return None
    return level if level in SAFE_LEVELS else None


def tree_hash(root: Path) -> str:
    """sha256 over every path, kind and content of the tree (symlinks by their target)."""
    key = (str(root), os.stat(root).st_mtime_ns)
    if key in _TREE_HASHES:
        return _TREE_HASHES[key]
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            if os.path.islink(full):
                h.update(b"L" + rel.encode() + b"\0" + os.readlink(full).encode() + b"\0")
            else:
                with open(full, "rb") as fh:
                    h.update(b"F" + rel.encode() + b"\0" + hashlib.sha256(fh.read()).digest())
    digest = h.hexdigest()
    _TREE_HASHES[key] = digest
    return digest


@cache
def code_digest(package: Path | None = None) -> str:
    """A digest of showcause's own code (modules, the scripts it copies into the sandbox): a result worked out
    by other code (a runner that since reads scripts.test's options) is never read back, whatever the version."""
    package = package or Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".cjs", ".js", ".mjs", ".toml", ".json") and path.is_file():
            h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


@cache
def _versions() -> dict[str, str]:
    out = {"python": sys.version, "showcause": __version__, "code": code_digest()}
    for dist in ("pytest", "pytest-timeout", "pyright"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "absent"
    return out


def _key(tree: Path, kind: str, target: str, policy: Policy, level: str, extra: dict[str, Any]) -> str:
    ident = json.dumps({"tree": tree_hash(tree), "kind": kind, "target": target, "isolation": level,
                        "policy": policy.model_dump(mode="json"), "extra": extra, **_versions()}, sort_keys=True)
    return hashlib.sha256(ident.encode()).hexdigest()


def _entry(tree: Path, kind: str, target: str, policy: Policy, extra: dict[str, Any]) -> Path | None:
    folder, level = _cache_dir(), _safe_level(policy)
    if folder is None or level is None:
        return None
    return folder / f"{_key(tree, kind, target, policy, level, extra)}.json"


def cache_get(tree: Path, kind: str, target: str, policy: Policy, extra: dict[str, Any] | None = None) -> Any | None:
    """The stored result of `kind` on `target` in `tree` under `policy` (`extra`: more of what it depends on)."""
    path = _entry(tree, kind, target, policy, extra or {})
    if path is None:
        return None
    try:
        # Written by showcause, but a cache file is still a file on disk: bounded like any other.
        return jsonsafe.load_file(path, max_bytes=jsonsafe.MAX_TOOL_JSON_BYTES)
    except (OSError, ValueError):   # a miss: the run is simply repeated
        return None


def cache_put(tree: Path, kind: str, target: str, policy: Policy, value: Any, extra: dict[str, Any] | None = None,
              ) -> None:
    path = _entry(tree, kind, target, policy, extra or {})
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(value, fh)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs time
