"""Mechanical review time on the real-world cases against what the project's CI already pays, in one run.

    .venv/bin/python benchmarks/bench_realworld.py [--cases real_cases] [--repeat N] [--only ID ...]

Baseline: the project's own full test run on head (every test file its runner would collect, in one
process, in the case's environment) plus one type check of head where the case has a checker — run in
the sandbox too, since third-party code never runs on the host. Cold: `review --mode mechanical` with the
base cache off (`SHOWCAUSE_NO_CACHE=1`); warm: the same review again once its base results are cached.
Reruns (`test_reruns`) happen only when a head failure is suspected, so their cost is in the defect rows:
`warm r0` is the warm review with `test_reruns = 0` (base still runs the suspects once afresh), and the
difference to `warm` is what the two re-run rounds cost. Each repeat runs the baseline and the reviews
back to back, so a ratio compares runs made under the same load; the medians are of those ratios, and
`spread` is the lowest and highest warm ratio of the repeats.
Goals (the issue): cold <= 1.0x the baseline, warm <= 0.5x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _baseline(case_path: Path) -> float:
    from showcause.service.inputs import open_snapshot, tool_context
    from showcause.tools.diagnostics import choose_checkers, run_checker
    from showcause.tools.runners.registry import runner_for
    from showcause.tools.testexec import allowed_tests, run_tests

    with open_snapshot(case=case_path) as snap:
        ctx = tool_context(snap)
        found = allowed_tests(snap.head, ctx.policy, ctx.env)
        by_runner: dict[str, list[str]] = {}
        for test in found:
            runner = runner_for(snap.head, test)
            if runner is not None:
                by_runner.setdefault(runner.name, []).append(test)
        start = time.perf_counter()
        for tests in by_runner.values():
            run_tests(snap.head, tests, ctx.policy, env=ctx.env, timeout_s=600)
        for checker in choose_checkers(snap.head, ctx.typecheck):
            run_checker(snap.head, checker, ctx.policy)
        return time.perf_counter() - start


def _review(case_path: Path, cold: bool, config: Path | None = None) -> float:
    from showcause.service import ChangeSource, ReviewOptions, review_change

    if cold:
        os.environ["SHOWCAUSE_NO_CACHE"] = "1"
    try:
        start = time.perf_counter()
        review_change(ChangeSource(case=case_path), ReviewOptions(mode="mechanical", config=config))
        return time.perf_counter() - start
    finally:
        os.environ.pop("SHOWCAUSE_NO_CACHE", None)


Run = tuple[float, float, float, float]


def _measure(case_path: Path, repeat: int, no_reruns: Path, once_above: float) -> list[Run]:
    """(baseline, cold, warm, warm with no re-runs) seconds, once per repeat, each repeat back to back; a case
    whose baseline takes longer than `once_above` seconds is measured once (its ratios are far from the goals)."""
    _review(case_path, cold=False)                       # fills the base cache
    _review(case_path, cold=False, config=no_reruns)     # and its entry under that policy
    runs: list[Run] = []
    for _ in range(repeat):
        runs.append((_baseline(case_path), _review(case_path, cold=True), _review(case_path, cold=False),
                     _review(case_path, cold=False, config=no_reruns)))
        if runs[0][0] > once_above:
            break
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=Path, default=ROOT / "real_cases")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--once-above", type=float, default=float("inf"),
                    help="measure a case once when its baseline takes longer than this many seconds")
    opts = ap.parse_args()

    from showcause.bench.cases import find_cases, load_case
    from showcause.service.prepare import prepare_case

    cases = [load_case(p) for p in find_cases(opts.cases)]
    cases = [c for c in cases if not opts.only or c.id in opts.only]
    for case in cases:
        prepare_case(case.path)
    print(f"{len(cases)} cases, median of {opts.repeat}; seconds")
    print(f"{'case':<44} {'base':>6} {'cold':>6} {'warm':>6} {'warm r0':>7} {'cold/base':>9} {'warm/base':>9} "
          f"{'spread':>11}")
    cold_ratios, warm_ratios = [], []
    with tempfile.TemporaryDirectory() as tmp:
        no_reruns = Path(tmp) / "no-reruns.toml"
        no_reruns.write_text("[tests]\ntest_reruns = 0\n", encoding="utf-8")
        for case in cases:
            runs = _measure(case.path, opts.repeat, no_reruns, opts.once_above)
            b, c, w, r = (statistics.median(x) for x in zip(*runs, strict=True))
            cold_ratio = statistics.median(run[1] / run[0] for run in runs)
            warm = [run[2] / run[0] for run in runs]
            cold_ratios.append(cold_ratio)
            warm_ratios.append(statistics.median(warm))
            print(f"{case.id:<44} {b:6.2f} {c:6.2f} {w:6.2f} {r:7.2f} {cold_ratio:9.2f} {warm_ratios[-1]:9.2f} "
                  f"{min(warm):5.2f}-{max(warm):<5.2f} x{len(runs)}", flush=True)
    if cases:
        print(f"median cold/base {statistics.median(cold_ratios):.2f}, worst {max(cold_ratios):.2f} (goal <= 1.0); "
              f"median warm/base {statistics.median(warm_ratios):.2f}, worst {max(warm_ratios):.2f} (goal <= 0.5); "
              f"cases within: cold {sum(r <= 1.0 for r in cold_ratios)}/{len(cold_ratios)}, "
              f"warm {sum(r <= 0.5 for r in warm_ratios)}/{len(warm_ratios)}")


if __name__ == "__main__":
    main()
