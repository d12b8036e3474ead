"""`showcause doctor`: what this host gives a review (`showcause setup`, the toolchain install, is setup.py).

One line per need, each with its fix when it is missing. Only isolation is required for a review to run;
a missing checker or pytest makes the reviews that need it report the probe unrunnable, never pass.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from showcause.core.cachedir import cache_root
from showcause.core.hostproc import HOST_CWD, host_env, which
from showcause.sandbox.toolchain import node_modules, pyright_node, tsc_path
from showcause.service.hoststatus import sandbox_status
from showcause.service.setup import toolchain_state

__all__ = ["HostCheck", "doctor_checks"]


@dataclass(frozen=True)
class HostCheck:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = False   # a review cannot run without it


def _version(program: str) -> str:
    try:
        out = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30, cwd=HOST_CWD,
                             env=host_env(), stdin=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.splitlines()[0] if out else ""


def _program(name: str, fix: str) -> HostCheck:
    path = which(name)
    if path is None:
        return HostCheck(name, False, "not found on PATH", fix)
    return HostCheck(name, True, f"{_version(path) or 'unknown version'} at {path}")


def _isolation() -> HostCheck:
    doc, text = sandbox_status()
    if "error" in doc:
        return HostCheck("isolation", False, text.replace("\n", "; "), "see docs/sandbox.md: install bubblewrap "
                         "(sandbox/install-bubblewrap.sh) or allow unprivileged user namespaces", required=True)
    why = "; ".join(f"{lv} {'works' if p['ok'] else 'fails: ' + p['detail']}" for lv, p in doc["levels"].items())
    return HostCheck("isolation", True, f"{doc['isolation']} ({why})", required=True)


def _pyright() -> HostCheck:
    spec = importlib.util.find_spec("pyright")
    if spec is None or not spec.origin:
        return HostCheck("pyright", False, "the pyright package is not installed", "pip install pyright")
    script = Path(spec.origin).parent / "dist" / "index.js"
    node = pyright_node()
    if node is None:
        return HostCheck("pyright", False, "no node to run it", "install Node.js 20+, or run `showcause setup`")
    how = "bundled CLI" if script.is_file() else "its console script (downloads pyright on first use)"
    return HostCheck("pyright", True, f"{how}, run by {node}")


def _tsc() -> HostCheck:
    tsc = tsc_path()
    if tsc is not None:
        return HostCheck("tsc", True, f"{tsc} (a reviewed project's own node_modules/.bin/tsc is used first)")
    return HostCheck("tsc", False, f"no toolchain in {node_modules().parent}: TypeScript/JavaScript typechecks use "
                     "the reviewed project's node_modules/.bin/tsc, or are unrunnable", "showcause setup")


def _cache() -> HostCheck:
    root = cache_root()
    existing = next((p for p in (root, *root.parents) if p.exists()), Path("/"))
    if os.access(existing, os.W_OK | os.X_OK):
        where, current = toolchain_state()
        return HostCheck("cache", True, f"{root} (toolchain {'installed' if current else 'not installed'} in {where})")
    return HostCheck("cache", False, f"{root} is not writable", "set SHOWCAUSE_CACHE_DIR to a writable folder")


def doctor_checks() -> list[HostCheck]:
    """Every check, in the order `showcause doctor` prints them."""
    pytest_ok = importlib.util.find_spec("pytest") is not None
    return [
        _isolation(),
        _program("node", "install Node.js 20+ (apt-get install nodejs), or run `showcause setup` with npm"),
        _program("npm", "install npm (apt-get install npm): `showcause setup` needs it once"),
        _pyright(), _tsc(),
        HostCheck("pytest", pytest_ok, f"importable by {sys.executable}" if pytest_ok else "not installed",
                  "" if pytest_ok else "pip install pytest (projects with dependencies: --python their venv)"),
        _cache(),
    ]
