"""`showcause setup`: the pinned toolchain (TypeScript, and node for pyright) installed into the cache.

An installed package carries the toolchain's `package.json` and `package-lock.json` (the versions the
checkout pins); npm installs exactly that lock into `<cache>/toolchain`, with no install scripts. A
stamp of the lock's hash makes a second run a no-op and a changed pin a reinstall. The toolchain is ours,
not the reviewed project's: it runs on the host like pip does, and reviews only read it (mounted read-only).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from showcause.core.errors import ToolchainUnavailable
from showcause.core.hostproc import host_env, which
from showcause.sandbox.toolchain import cached_toolchain, checkout_toolchain

__all__ = ["PINS", "pinned_files", "setup_toolchain", "toolchain_state"]

PINS = ("package.json", "package-lock.json")
_STAMP = ".showcause-lock-sha256"
_NPM_TIMEOUT_S = 600


def pinned_files() -> dict[str, bytes]:
    """The pins: the package's copy (a wheel) or the checkout's `toolchain/`."""
    packaged = resources.files("showcause") / "_toolchain"
    found: dict[str, bytes] = {}
    for name in PINS:
        item = packaged / name
        found[name] = item.read_bytes() if item.is_file() else (checkout_toolchain() / name).read_bytes()
    return found


def _digest(pins: dict[str, bytes]) -> str:
    return hashlib.sha256(b"".join(pins[n] for n in PINS)).hexdigest()


def toolchain_state() -> tuple[Path, bool]:
    """(the cache's toolchain folder, whether it holds the current pins installed)."""
    where = cached_toolchain()
    stamp = where / _STAMP
    try:
        current = stamp.read_text(encoding="utf-8").strip() == _digest(pinned_files())
    except OSError:
        current = False
    return where, current and (where / "node_modules" / "typescript" / "bin" / "tsc").is_file()


def _npm_env() -> dict[str, str]:
    # npm's own settings (its cache under HOME, a registry mirror, a proxy) pass; nothing else of ours does.
    return {k: v for k, v in os.environ.items()
            if k == "HOME" or k.lower().startswith("npm_config_") or k.lower() in ("https_proxy", "http_proxy",
                                                                                   "no_proxy")}


def setup_toolchain(force: bool = False) -> str:
    """Install the pinned toolchain into the cache (idempotent); one line saying what was done."""
    where, current = toolchain_state()
    if current and not force:
        return f"toolchain already installed in {where}"
    npm = which("npm")
    if npm is None:
        raise ToolchainUnavailable(
            "npm not found: install Node.js 20+ with npm (e.g. apt-get install nodejs npm), then rerun "
            "`showcause setup`; without it JavaScript/TypeScript typechecks use the reviewed project's own "
            "node_modules/.bin/tsc when it has one, and are skipped otherwise")
    pins = pinned_files()
    staging = where.with_name(f".{where.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name, data in pins.items():
        (staging / name).write_bytes(data)
    argv = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        proc = subprocess.run(argv, cwd=staging, capture_output=True, text=True, timeout=_NPM_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, env=host_env(_npm_env()))
    except (OSError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise ToolchainUnavailable(f"npm ci failed to run: {exc}") from None
    if proc.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        tail = " ".join((proc.stderr or proc.stdout).split())[-400:]
        raise ToolchainUnavailable(f"npm ci exited {proc.returncode} (offline? the registry unreachable?): {tail}")
    (staging / _STAMP).write_text(_digest(pins) + "\n", encoding="utf-8")
    shutil.rmtree(where, ignore_errors=True)   # swapped in whole: a reader never sees half an install
    staging.rename(where)
    return f"toolchain installed in {where}"
