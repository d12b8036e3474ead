"""Mechanical review time on real-code cases against the physical limit measured in the same run.

    .venv/bin/python benchmarks/bench_review.py [--cases repo_cases] [--repeat N]

Physical limit: the affected tests run once on head and once on base, and pyright/tsc run once on
each tree, with no sandbox and no harness, the four processes started together (2 cores). The review
is `showcause review --mode mechanical` in-process with a cold base cache, then again with a warm one.
Goals: cold <= 1.2x the limit, warm <= 0.6x.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _limit(head: Path, base: Path, tests: list[str], checker: str) -> float:
    from showcause.tools.diagnostics import tsc_path

    py = tests and tests[0].endswith(".py")
    cmds = []
    for tree in (head, base):
        if tests:
            cmds.append(([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests] if py
                         else ["node", "--test", *tests], tree))
        if checker == "pyright":
            cmds.append(([str(Path(sys.executable).parent / "pyright"), "--outputjson"], tree))
        elif checker == "tsc":
            cmds.append((["node", str(tsc_path()), "--noEmit", "--pretty", "false", "-p", "tsconfig.json"], tree))
    copies = []
    for _argv, tree in cmds:  # each process gets its own copy, as the sandbox does, made outside the timing
        d = Path(tempfile.mkdtemp())
        shutil.copytree(tree, d / "w", symlinks=True)
        copies.append(d)
    start = time.perf_counter()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    procs = [subprocess.Popen(argv, cwd=d / "w", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
             for (argv, _), d in zip(cmds, copies, strict=True)]
    for p in procs:
        p.wait()
    took = time.perf_counter() - start
    for d in copies:
        shutil.rmtree(d, ignore_errors=True)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=Path, default=ROOT / "repo_cases")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--all", action="store_true", help="every case, not only source.kind == real_code")
    opts = ap.parse_args()

    from showcause.bench.cases import find_cases, load_case
    from showcause.service.inputs import open_snapshot, tool_context
    from showcause.service.review import run_review
    from showcause.tools.diagnostics import choose_checkers
    from showcause.tools.selection import affected_tests

    cases = [load_case(p) for p in find_cases(opts.cases)]
    cases = [c for c in cases if opts.all or c.doc.source.kind == "real_code"]
    print(f"{len(cases)} cases, median of {opts.repeat}; seconds")
    print(f"{'case':<36} {'limit':>6} {'cold':>6} {'warm':>6} {'cold/limit':>10} {'warm/limit':>10}")
    ratios_cold, ratios_warm = [], []
    for case in cases:
        limits, colds, warms = [], [], []
        for _ in range(opts.repeat):
            cache = tempfile.mkdtemp()
            os.environ["SHOWCAUSE_CACHE_DIR"] = cache
            with open_snapshot(case=case.path) as snap:
                ctx = tool_context(snap)
                tests, _why = affected_tests(ctx)
                checkers = choose_checkers(snap.head, ctx.typecheck)
                limits.append(_limit(snap.head, snap.base, tests, checkers[0] if checkers else "none"))
                t = time.perf_counter()
                run_review(tool_context(snap), "mechanical")
                colds.append(time.perf_counter() - t)
            with open_snapshot(case=case.path) as snap:
                t = time.perf_counter()
                run_review(tool_context(snap), "mechanical")
                warms.append(time.perf_counter() - t)
            shutil.rmtree(cache, ignore_errors=True)
        lim, cold, warm = (statistics.median(x) for x in (limits, colds, warms))
        ratios_cold.append(cold / lim)
        ratios_warm.append(warm / lim)
        print(f"{case.id:<36} {lim:6.2f} {cold:6.2f} {warm:6.2f} {cold / lim:10.2f} {warm / lim:10.2f}")
    if cases:
        print(f"worst cold/limit {max(ratios_cold):.2f} (goal <= 1.2), worst warm/limit {max(ratios_warm):.2f} "
              "(goal <= 0.6)")


if __name__ == "__main__":
    main()
