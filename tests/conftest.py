"""Suite-wide settings: the base-result cache lives in a private folder, never in the user's home; the
isolation audit (support/isolation_audit.py) checks that every test whose outcome can depend on the
isolation level is marked `isolation`."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from isolation_audit import MARKER, AuditPlugin, install, uninstall, watch_levels

_CACHE = tempfile.mkdtemp(prefix="showcause-test-cache-")
_AUDIT = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    os.environ["SHOWCAUSE_CACHE_DIR"] = _CACHE   # subprocesses (the CLI) inherit it
    config.addinivalue_line("markers", f"{MARKER}: the outcome can depend on the isolation level; "
                            "`make test-without-bwrap` runs these (support/isolation_audit.py)")
    installed_here = "SHOWCAUSE_ISOLATION_AUDIT_DIR" not in os.environ
    audit = install()
    if audit is not None and installed_here:
        config.stash[_AUDIT] = audit
    if audit is not None:
        plugin = AuditPlugin(audit)
        config.pluginmanager.register(plugin, "isolation-audit")
        watch_levels(plugin)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_CACHE, ignore_errors=True)
    audit = config.stash.get(_AUDIT, None)
    if audit is not None:
        uninstall(audit)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    """The argv of every sandboxed test process a run starts (a batch's or a file's alone)."""
    from showcause.tools import testlanes

    calls: list[tuple[str, ...]] = []
    real = testlanes.run_sandboxed

    def counting(argv: list[str], **kwargs: Any) -> Any:
        calls.append(tuple(argv))
        return real(argv, **kwargs)

    monkeypatch.setattr(testlanes, "run_sandboxed", counting)
    yield calls
