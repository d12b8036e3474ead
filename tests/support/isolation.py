"""Isolation facts of this host for the tests, and fake hosts where no level that hides the host works.

`hosts/ubuntu-24.04/` and `hosts/docker/` hold real executables named `bwrap` and `unshare` that fail exactly
as those programs fail there; put first on PATH, they make this machine one without a usable sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path

from showcause.core.errors import SandboxUnavailable
from showcause.policy import load_policy
from showcause.sandbox.runner import available_isolation

__all__ = ["AUTO_LEVEL", "FAKE_HOSTS", "fake_host_env"]

HOSTS = Path(__file__).resolve().parent / "hosts"
FAKE_HOSTS = sorted(p.name for p in HOSTS.iterdir() if p.is_dir())


def _auto() -> str | None:
    try:
        return available_isolation(load_policy())
    except SandboxUnavailable:
        return None


AUTO_LEVEL = _auto()   # what `isolation = "auto"` uses here; None where nothing hides the host


def fake_host_env(host: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment in which `bwrap` and `unshare` fail as on `host`."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = f"{HOSTS / host}{os.pathsep}{env.get('PATH', '')}"
    return env
