"""Sandboxed `run_test` against running the same pytest file directly, timed in one run.

    .venv/bin/python benchmarks/bench_run_test.py [--repeat N] [--tests N]

Direct: `python -m pytest -q -p no:cacheprovider FILE` in the project. Sandboxed: the tool's head run
(fresh copy of the tree + bubblewrap + rlimits + result plugin), and the whole tool call when a test
fails (head run + base run). Reports the ratios.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import median_time

_SRC = "def add(a, b):\n    return a + b\n"


def make_project(root: Path, n_tests: int, modules: int = 60) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    (root / "src" / "pkg" / "__init__.py").write_text("")
    for i in range(modules):  # a realistic number of files to copy
        (root / "src" / "pkg" / f"mod{i}.py").write_text(_SRC * 20)
    body = "from pkg.mod0 import add\n\n" + "".join(
        f"def test_{i}():\n    assert add({i}, 1) == {i + 1}\n\n" for i in range(n_tests))
    (root / "tests" / "test_add.py").write_text(body)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tests", type=int, default=50)
    opts = ap.parse_args()

    from showcause.evidence.ledger import Ledger
    from showcause.sandbox.policy import load_policy
    from showcause.sandbox.runner import available_isolation
    from showcause.snapshot import from_dir
    from showcause.tools.base import ToolContext
    from showcause.tools.testexec import run_tests

    policy = load_policy()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        make_project(root, opts.tests)
        direct = median_time(lambda: subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                                     "tests/test_add.py"], cwd=root, capture_output=True),
                             opts.repeat)
        with from_dir(root) as snap:
            head_only = median_time(lambda: run_tests(snap.head, "tests/test_add.py", policy), opts.repeat)
            ctx = ToolContext(snapshot=snap, policy=policy)
            tool = median_time(lambda: Ledger(ctx).call("run_test", {"test": "tests/test_add.py"}), opts.repeat)
        # A failing head makes the tool run base too.
        (root / "src" / "pkg" / "mod0.py").write_text(_SRC.replace("a + b", "a - b"))
        with from_dir(root) as snap:
            ctx = ToolContext(snapshot=snap, policy=policy)
            (root / "src" / "pkg" / "mod0.py").write_text(_SRC)
            failing = median_time(lambda: Ledger(ctx).call("run_test", {"test": "tests/test_add.py"}), opts.repeat)
    print(f"isolation {available_isolation(policy)}; {opts.tests} tests; median of {opts.repeat}, seconds")
    print(f"direct pytest                         {direct:.3f}")
    print(f"sandboxed head run                    {head_only:.3f}  ratio {head_only / direct:.2f}")
    print(f"run_test call, all passing (head)     {tool:.3f}  ratio {tool / direct:.2f}")
    print(f"run_test call, failing (head + base)  {failing:.3f}  ratio {failing / direct:.2f}")


if __name__ == "__main__":
    main()
