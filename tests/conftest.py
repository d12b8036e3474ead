"""Suite-wide settings: the base-result cache lives in a private folder, never in the user's home."""

from __future__ import annotations

import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="showcause-test-cache-")


def pytest_configure() -> None:
    os.environ["SHOWCAUSE_CACHE_DIR"] = _CACHE   # subprocesses (the CLI) inherit it


def pytest_unconfigure() -> None:
    shutil.rmtree(_CACHE, ignore_errors=True)
