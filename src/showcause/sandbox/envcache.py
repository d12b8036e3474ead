"""Environments for real-world repo cases (`checks.env`), built once outside the sandbox and reused.

A case pins what its tests need (pip requirements, npm packages); `cases prepare` builds each distinct set
once into the cache: a virtualenv from wheels only (`--only-binary :all:`: no package's build code runs
on the host) and a `node_modules` installed with `--ignore-scripts` (no install script runs). A review
of the case binds them read-only into the sandbox like a user's own `.venv` and `node_modules`; it
never builds or downloads anything itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import uuid
from pathlib import Path

from showcause.core.cachedir import cache_root
from showcause.core.errors import InputError
from showcause.core.hostproc import HOST_CWD, host_env, which
from showcause.sandbox.mounts import Mount
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.pyenv import project_python

__all__ = ["case_env", "node_env_dir", "python_env_dir"]

_INSTALL_TIMEOUT_S = 900


def _folder(kind: str, pins: tuple[str, ...]) -> Path:
    ident = json.dumps({"kind": kind, "pins": sorted(pins), "python": sys.version_info[:2]}, sort_keys=True)
    return cache_root() / "envs" / f"{kind}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}"


def _run(argv: list[str], what: str) -> None:
    try:
        # The user's own environment (HOME, proxies, CA bundles, registry settings): pip and npm need their
        # configuration to reach the registry; they start outside any reviewed tree, with a safe PATH.
        env = {**os.environ, **host_env(), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=_INSTALL_TIMEOUT_S, cwd=HOST_CWD,
                              env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"{what} failed: {exc}") from exc
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-4:])
        raise InputError(f"{what} failed (exit {proc.returncode}): {tail[:600]}")


_BUILDING: dict[Path, threading.Lock] = {}
_BUILDING_LOCK = threading.Lock()


def _build(folder: Path, make: object) -> Path:
    """Build into a private sibling and rename: a cut build never looks prepared. Threads that want the same
    folder build it once (one lock per folder); another process that got there first wins the rename and
    this build is dropped."""
    with _BUILDING_LOCK:
        lock = _BUILDING.setdefault(folder, threading.Lock())
    with lock:
        if folder.is_dir():
            return folder
        tmp = folder.with_name(f".{folder.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
        tmp.parent.mkdir(parents=True, exist_ok=True)
        try:
            assert callable(make)
            make(tmp)
            try:
                os.replace(tmp, folder)
            except OSError:
                if not folder.is_dir():
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)   # gone when renamed; a cut or a lost race leaves nothing
    return folder


def _not_prepared(what: str) -> InputError:
    return InputError(f"the case environment ({what}) is not prepared: run `showcause cases prepare` on the case "
                      "folder first")


def python_env_dir(pins: tuple[str, ...], *, fetch: bool = False) -> Path:
    """A virtualenv holding exactly `pins` (wheels only)."""
    folder = _folder("py", pins)
    if not folder.is_dir() and not fetch:
        raise _not_prepared(", ".join(pins))

    def make(tmp: Path) -> None:
        _run([sys.executable, "-m", "venv", "--without-pip", str(tmp)], "creating the case virtualenv")
        if not pins:  # a project that needs only the standard library (unittest)
            return
        # showcause's own pip installs into it: nothing of the new environment runs while it is built.
        _run([sys.executable, "-m", "pip", "--python", str(tmp / "bin" / "python"), "install", "--quiet",
              "--no-input", "--only-binary", ":all:", *pins], f"pip install {' '.join(pins)}")
    return _build(folder, make)


def node_env_dir(pins: tuple[str, ...], *, fetch: bool = False) -> Path:
    """A folder whose `node_modules` holds exactly `pins` and what they depend on."""
    folder = _folder("npm", pins)
    if not folder.is_dir() and not fetch:
        raise _not_prepared(", ".join(pins))
    npm = which("npm")
    if npm is None:
        raise InputError("npm is not installed: it is needed to prepare the case's node_modules")

    def make(tmp: Path) -> None:
        tmp.mkdir(parents=True)
        (tmp / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        _run([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "--prefix",
              str(tmp), *pins], f"npm install {' '.join(pins)}")
    return _build(folder, make)


def case_env(pip: tuple[str, ...], npm: tuple[str, ...], pythonpath: tuple[str, ...]) -> ProjectEnv:
    """The prepared environment of a case as the sandbox sees it (read-only, the same for both trees)."""
    mounts: list[Mount] = []
    python, origin, packages = sys.executable, "showcause's own", ""
    if pip:
        # Inspected and bound exactly as a user's own virtualenv is (`pyenv`), so the base cache keys on what is
        # installed there too.
        found = project_python(None, explicit=python_env_dir(pip))
        python, packages = found.python, found.packages
        mounts += found.mounts
        origin = f"the case environment ({', '.join(pip)})"
    if npm:
        mounts.append(Mount("ro", "{root}/node_modules", str(node_env_dir(npm) / "node_modules")))
    return ProjectEnv(python=python, origin=origin, mounts=tuple(mounts), pythonpath=pythonpath, packages=packages)
