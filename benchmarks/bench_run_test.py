"""Sandboxed `run_test` against running the same pytest file directly, timed in one run.

    .venv/bin/python benchmarks/bench_run_test.py [--repeat N] [--tests N]

Direct: `python -m pytest -q -p no:cacheprovider FILE` in the project. Sandboxed: the tool's head run
(fresh copy of the tree + bubblewrap + rlimits + result plugin), and the whole tool call (head run + the
same run on base), all passing and with a failure. Reports the ratios.

Re-runs: a project whose base and head differ by a docstring and whose one flaky test fails in head's full
run only. The tool call re-runs it (`[tests] test_reruns`, default 2, on each tree) and reports it flaky;
with `test_reruns = 0` it would be one run each and a block. The cost of the re-runs is the ratio of the
two calls, measured in the same run, with the base cache off (every base run real).
"""

from __future__ import annotations

import argparse
import os
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


_FLAKY = (
    "import sys\nfrom pathlib import Path\n\n"
    "HEAD = 'v2' in (Path(__file__).resolve().parents[1] / 'src' / 'pkg' / 'mod0.py').read_text()\n"
    "RERUN = any('::' in arg for arg in sys.argv)\n\n\n"
    "def test_flaky():\n    assert RERUN or not HEAD   # fails in head's full run only\n")


def rerun_cost(root: Path, n_tests: int, repeat: int) -> tuple[float, float]:
    """Seconds of a run_test call with the default re-runs and with none, on a flaky test (base cache off)."""
    from showcause.evidence.ledger import Ledger
    from showcause.policy import load_policy
    from showcause.snapshot import Diff, Snapshot
    from showcause.tools.base import ToolContext

    base, head = root / "base", root / "head"
    for tree, doc in ((base, ""), (head, '"""v2"""\n')):
        make_project(tree, n_tests)
        (tree / "src" / "pkg" / "mod0.py").write_text(doc + _SRC * 20)
        (tree / "tests" / "test_flaky.py").write_text(_FLAKY)
    snap = Snapshot(base=base, head=head, diff=Diff(), label="flaky")
    tests = {"test": ["tests/test_add.py", "tests/test_flaky.py"]}
    os.environ["SHOWCAUSE_NO_CACHE"] = "1"
    try:
        times = []
        for reruns in (2, 0):
            ctx = ToolContext(snapshot=snap, policy=load_policy({"tests": {"test_reruns": reruns}}))
            times.append(median_time(lambda: Ledger(ctx).call("run_test", tests), repeat))  # noqa: B023
    finally:
        del os.environ["SHOWCAUSE_NO_CACHE"]
    return times[0], times[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tests", type=int, default=50)
    opts = ap.parse_args()

    from showcause.evidence.ledger import Ledger
    from showcause.policy import load_policy
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
        # Both trees fail (the copies are taken while mod0 is broken): a pre-existing failure, nothing re-run.
        (root / "src" / "pkg" / "mod0.py").write_text(_SRC.replace("a + b", "a - b"))
        with from_dir(root) as snap:
            ctx = ToolContext(snapshot=snap, policy=policy)
            (root / "src" / "pkg" / "mod0.py").write_text(_SRC)
            failing = median_time(lambda: Ledger(ctx).call("run_test", {"test": "tests/test_add.py"}), opts.repeat)
        with_reruns, without = rerun_cost(Path(tmp) / "flaky", opts.tests, opts.repeat)
    print(f"isolation {available_isolation(policy)}; {opts.tests} tests; median of {opts.repeat}, seconds")
    print(f"direct pytest                         {direct:.3f}")
    print(f"sandboxed head run                    {head_only:.3f}  ratio {head_only / direct:.2f}")
    print(f"run_test call, all passing            {tool:.3f}  ratio {tool / direct:.2f}")
    print(f"run_test call, failing on both trees  {failing:.3f}  ratio {failing / direct:.2f}")
    print(f"flaky test, test_reruns = 0           {without:.3f}  (head + base, one run each: a block)")
    print(f"flaky test, test_reruns = 2           {with_reruns:.3f}  ratio to test_reruns = 0: "
          f"{with_reruns / without:.2f} (re-runs report it flaky)")


if __name__ == "__main__":
    main()
