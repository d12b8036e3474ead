"""The npm-installed toolchain: the TypeScript compiler, and a pinned node for pyright.

In a checkout it is `toolchain/node_modules` (`make setup`); an installed package has none, and uses the
one `showcause setup` installs into the cache (`<cache>/toolchain`, see service/setup.py).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from functools import cache
from pathlib import Path

from showcause.core.cachedir import cache_root
from showcause.core.hostproc import HOST_CWD, host_env, which

__all__ = ["cached_toolchain", "checkout_toolchain", "node_modules", "node_test_batches", "pyright_node",
           "test_node_options", "tsc_native", "tsc_path", "v8_flags"]

_NODE_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def checkout_toolchain() -> Path:
    """`toolchain/` of the checkout this package runs from (absent in an installed package)."""
    return Path(__file__).resolve().parents[3] / "toolchain"


def cached_toolchain() -> Path:
    """Where `showcause setup` installs the toolchain: beside the other caches, per user."""
    return cache_root() / "toolchain"


def node_modules() -> Path:
    """The checkout's toolchain when there is one, else the cache's (which may not be installed yet)."""
    own = checkout_toolchain() / "node_modules"
    return own if own.is_dir() else cached_toolchain() / "node_modules"


def _arch() -> str:
    machine = platform.machine().lower()
    return _NODE_ARCH.get(machine, machine)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def tsc_path() -> Path | None:
    tsc = node_modules() / "typescript" / "bin" / "tsc"
    return tsc if tsc.is_file() else None


def tsc_native(tsc: Path) -> Path | None:
    """TypeScript 7's native compiler, which its `tsc` script only starts."""
    native = tsc.parents[2] / "@typescript" / f"typescript-{sys.platform}-{_arch()}" / "lib" / "tsc"
    return native if _executable(native) else None


@cache
def pyright_node() -> str | None:
    """The node that runs pyright: the toolchain's pinned one (node 24, whose V8 has the Maglev tier)
    when it runs on this host, else the node on PATH."""
    pinned = node_modules() / f"node-{sys.platform}-{_arch()}" / "bin" / "node"
    if _executable(pinned) and _v8_options(str(pinned)):
        return str(pinned)
    return which("node")


@cache
def _v8_options(node: str) -> str:
    """What ``node --v8-options`` prints: the one run of node on the host, so from ``/`` and with no variable
    of ours (``NODE_OPTIONS`` could make it load a module relative to its working directory)."""
    try:
        return subprocess.run([node, "--v8-options"], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, cwd=HOST_CWD, env=host_env()).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


@cache
def _node_help(node: str) -> str:
    """What ``node --help`` prints (run as `_v8_options` runs node: from ``/``, with none of our variables)."""
    try:
        return subprocess.run([node, "--help"], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, cwd=HOST_CWD, env=host_env()).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def test_node_options(node: str) -> str:
    """``NODE_OPTIONS`` for a JavaScript test runner and every node it starts: WebAssembly without its
    trap handler, which otherwise reserves about 10 GiB of address space per instance (vitest's module
    lexer makes several), so that the address-space limit of the sandbox does not kill it. Empty where
    this node has no such option (older than 20.15)."""
    return "--disable-wasm-trap-handler" if "--disable-wasm-trap-handler" in _node_help(node) else ""


def node_test_batches(node: str) -> bool:
    """Whether this node's test runner can share one process among test files and say which file each test
    came from: files one after another (``--test-concurrency``, node 20.10 and later), each still in a child
    process of its own, with the file on every test event a reporter reads."""
    return "--test-concurrency" in _node_help(node)


def v8_flags(node: str) -> list[str]:
    """The highest tier a run of a few seconds repays. The top tier (TurboFan) costs more CPU in its
    compile threads than it saves; Maglev, on by default from node 22, cuts pyright's CPU by 7-12% and its
    wall time by 30% against the baseline tier (measured in docs/performance.md). Where Maglev is off
    (node 20), turning it on gained nothing, so such a node stops at the baseline tier."""
    options = _v8_options(node)
    if "--max-opt" not in options:
        return []
    return ["--max-opt=2"] if "default: --maglev" in options else ["--max-opt=1"]
