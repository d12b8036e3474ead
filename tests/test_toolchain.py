"""The toolchain: which node runs pyright, and with which V8 tiers (real node binaries and scripts)."""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from showcause.sandbox.toolchain import node_modules, pyright_node, v8_flags
from showcause.tools.diagnostics import _pyright_argv

_ARCH = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def _fake_node(tmp_path: Path, name: str, options: str, code: int = 0) -> str:
    """An executable answering `--v8-options` the way a node of some version does."""
    (tmp_path / f"{name}.txt").write_text(options)
    script = tmp_path / name
    script.write_text(f"#!/bin/sh\ncat '{tmp_path / (name + '.txt')}'\nexit {code}\n")
    script.chmod(0o755)
    return str(script)


NODE20 = ("  --maglev (enable the maglev optimizing compiler)\n        type: bool  default: --no-maglev\n"
          "  --max-opt (Set the maximal optimisation tier)\n        type: uint  default: --max-opt=999\n")
NODE24 = NODE20.replace("default: --no-maglev", "default: --maglev")


def test_pyright_runs_on_the_pinned_node_with_maglev_as_its_top_tier() -> None:
    node = pyright_node()
    assert node == str(node_modules() / f"node-{sys.platform}-{_ARCH}" / "bin" / "node")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("v24.")
    argv = _pyright_argv()
    assert argv[:2] == [node, "--max-opt=2"] and argv[2].endswith("pyright/dist/index.js")


def test_v8_flags_follow_what_the_node_offers(tmp_path: Path) -> None:
    assert v8_flags(_fake_node(tmp_path, "node24", NODE24)) == ["--max-opt=2"]
    # Maglev off by default (node 20): turning it on gained nothing, so stop at the baseline tier.
    assert v8_flags(_fake_node(tmp_path, "node20", NODE20)) == ["--max-opt=1"]
    assert v8_flags(_fake_node(tmp_path, "old", "  --turbo-inlining (inline functions)\n")) == []
    assert v8_flags(_fake_node(tmp_path, "broken", "", code=1)) == []
    assert v8_flags(str(tmp_path / "missing")) == []


def test_without_a_working_pinned_node_pyright_uses_the_node_on_path(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import showcause.sandbox.toolchain as toolchain

    monkeypatch.setattr(toolchain, "node_modules", lambda: tmp_path)
    toolchain.pyright_node.cache_clear()
    try:
        assert toolchain.pyright_node() == shutil.which("node")            # not installed
        pinned = tmp_path / f"node-{sys.platform}-{_ARCH}" / "bin"
        pinned.mkdir(parents=True)
        Path(_fake_node(pinned, "node", "", code=126))                      # installed, cannot run here
        toolchain.pyright_node.cache_clear()
        assert toolchain.pyright_node() == shutil.which("node")
    finally:
        toolchain.pyright_node.cache_clear()
