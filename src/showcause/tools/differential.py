"""Head against base for one `run_test` call (docs/gate.md, "What can back a block").

Base runs exactly what head ran (the same targets, in the same order, with the same command), so a test
that fails only after another one changed shared state fails on both. A test that fails on head and passed
on base is re-run (`[tests] test_reruns` times on each tree, the suspected ids only) before it can block:
it is a regression only if it failed every run on head and passed every run on base, else it is flaky. A
test file that ran on base but gives no result on head (a conftest that crashes, a process that exits) is
a failure of that file. Tests that could not run to any outcome are no evidence at all: PROBE_UNRUNNABLE.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from showcause.core.errors import ProbeUnrunnable
from showcause.core.threads import ContextPool
from showcause.tools.base import ToolContext
from showcause.tools.testexec import BaseRun, TestOutcome, TestRun, mark_flaky, run_base_tests, run_tests
from showcause.tools.testpresence import file_tests, named_in

__all__ = ["BAD", "Comparison", "Finding", "base_after", "base_needed", "compare", "file_of", "start_base"]

BAD = ("failed", "error", "timeout")
_RAN = ("passed", "failed", "timeout")     # a test that ran to an outcome (an error may be the harness's)


def file_of(test: str) -> str:
    return test.split("::", 1)[0]


def _function(test: str) -> str:
    """A test id without its parametrization: `f::t[1]` -> `f::t`."""
    return test.split("[", 1)[0]


def _covers(target: str, test: str) -> bool:
    """Whether a reported `test` is a result for `target` (a file or an id): one of its tests, one of its
    parametrizations or methods, or the error of its whole file."""
    return test == target or test.startswith((target + "::", target + "[")) or test == file_of(target)


def _normalized(outcomes: tuple[TestOutcome, ...]) -> list[TestOutcome]:
    """The outcomes, with a result for a whole file under the file's own id. node --test names a file that
    failed to load, or that exited before any of its tests reported, by the file's path in the sandbox."""
    rows: list[TestOutcome] = []
    whole: list[TestOutcome] = []
    for o in outcomes:
        file, _, name = o.test.partition("::")
        (whole if name and (name == file or name.endswith("/" + file)) else rows).append(o)
    with_tests = {file_of(r.test) for r in rows if "::" in r.test}
    for o in whole:
        file = file_of(o.test)
        if o.outcome in BAD:
            rows.append(TestOutcome(file, "error", f"the file failed to load ({o.message or o.outcome})"))
        elif file not in with_tests:
            rows.append(TestOutcome(file, "error", "the file exited before any of its tests reported"))
    return rows


def _no_result(run: TestRun) -> str:
    if run.problem:
        return run.problem
    tail = " | ".join((run.proc.stderr or run.proc.stdout).strip().splitlines()[-3:])[:400]
    return f"no result (exit {run.proc.returncode})" + (f": {tail}" if tail else "")


def head_rows(run: TestRun, targets: list[str], tree: Path, base: Path | None = None) -> list[TestOutcome]:
    """The outcomes of a head run, plus an error for every target that gave no result at all (a test id
    asked for that is not in its file on head is simply absent: there is nothing to run)."""
    rows = _normalized(run.outcomes)
    for target in targets:
        if not any(_covers(target, r.test) for r in rows) and ("::" not in target or named_in(tree, target, base)):
            rows.append(TestOutcome(target, "error", f"no result on head: {_no_result(run)}"))
    return rows


def _lost(head: list[TestOutcome], base: list[TestOutcome], run: TestRun, tree: Path,
          base_tree: Path) -> list[TestOutcome]:
    """Tests that passed on base, are still in their file on head, and gave no result there (a head conftest
    that deselects them, a process that exits part way): errors of head. A deleted test is not one."""
    reported = {_function(r.test) for r in head} | {r.test for r in head if "::" not in r.test}
    lost = [TestOutcome(b.test, "error", f"no result on head: {_no_result(run)}") for b in base
            if b.outcome == "passed" and "::" in b.test and _function(b.test) not in reported
            and file_of(b.test) not in reported and named_in(tree, b.test, base_tree)]
    return list({o.test: o for o in lost}.values())


def _file_status(rows: list[TestOutcome], file: str) -> str | None:
    """A whole file's outcome: its own error, else passed if any of its tests passed, else its first test's."""
    own = next((r.outcome for r in rows if r.test == file), None)
    if own is not None:
        return own
    tests = [r.outcome for r in rows if file_of(r.test) == file]
    return "passed" if "passed" in tests else (tests[0] if tests else None)


def _status(rows: list[TestOutcome], test: str) -> str | None:
    if "::" not in test:
        return _file_status(rows, test)
    exact = next((r.outcome for r in rows if r.test == test), None)
    return exact if exact is not None else next((r.outcome for r in rows if r.test == file_of(test)), None)


@dataclass
class Finding:
    """A test that did not pass on head, and what it was on base. `kind`: regression (failing on head every
    run, passing on base every run), new (not on base), flaky, pre-existing, unknown (the base run did not
    finish) or not-run (skipped on base)."""

    test: str
    head: str
    base: str | None
    kind: str
    message: str = ""
    runs: dict[str, list[str]] | None = None     # every run's outcome on each tree, for a re-run test
    known: bool = False                          # flaky by the base cache's record of an earlier review


@dataclass
class Comparison:
    rows: list[TestOutcome]                  # head's outcomes, with what gave no result
    findings: list[Finding] = field(default_factory=list)
    base: BaseRun | None = None
    reruns: int = 0                          # re-runs made on each tree


def _base_targets(ctx: ToolContext, targets: list[str]) -> list[str]:
    """The targets whose file exists on base, in head's order: a file new on head has no base to run."""
    return [t for t in targets if (ctx.snapshot.base / file_of(t)).is_file()]


def base_needed(ctx: ToolContext, targets: list[str], head: TestRun) -> bool:
    """Whether head's outcomes need base at all: some test did not pass on head, or a file defines a test head
    gave no result for (or cannot list its tests from its source) — a test lost on head is an error only if it
    passed on base. With every test of every file accounted for and passing there is nothing to compare."""
    snap = ctx.snapshot
    rows = head_rows(head, targets, snap.head, snap.base)
    if any(r.outcome in BAD for r in rows):
        return True
    reported = {_function(r.test) for r in rows} | {r.test for r in rows if "::" not in r.test}
    for target in _base_targets(ctx, targets):
        file = file_of(target)
        if file in reported:   # judged as a whole file, and it passed
            continue
        defined = file_tests(snap.head, file)
        if defined is None or any(_function(t) not in reported for t in defined if _covers(target, t)):
            return True
    return False


def start_base(ctx: ToolContext, targets: list[str]) -> BaseRun | None:
    base = _base_targets(ctx, targets)
    return run_base_tests(ctx.snapshot.base, base, ctx.policy, ctx.env) if base else None


def base_after(ctx: ToolContext, targets: list[str], head: TestRun) -> BaseRun | None:
    """Base for `targets` after head ran them: exactly what head ran, when `base_needed`; else nothing."""
    return start_base(ctx, targets) if base_needed(ctx, targets, head) else None


def _fix(test: str) -> str:
    if test.endswith(".py") or ".py::" in test:
        return "run with --python PATH (the project's interpreter) or install the project's dependencies"
    return "install the project's dependencies (npm ci) so that its test runner and packages are there"


def _check_runnable(head: list[TestOutcome], run: TestRun, base: BaseRun | None, base_rows: list[TestOutcome],
                    ctx: ToolContext) -> None:
    """PROBE_UNRUNNABLE when tests did not pass on head and nothing can tell whether the change did it: no
    test ran to an outcome on base (and the failures are in files base has, or nothing ran on head either),
    or a runner of the failing files could not start at all (it is not installed)."""
    bad = [r for r in head if r.outcome in BAD]
    if not bad:
        return
    on_base = [r for r in bad if (ctx.snapshot.base / file_of(r.test)).is_file()]
    base_files = {file_of(b.test) for b in base_rows}
    # A runner that is not installed ran nothing: no outcome there says anything about the change.
    not_started = run.unstarted or (base is not None and base.run.unstarted
                                    and any(file_of(r.test) not in base_files for r in on_base))
    if not not_started and (any(r.outcome in _RAN for r in base_rows)
                            or (any(r.outcome in _RAN for r in head) and not on_base)):
        return
    said = next((r.problem for r in (base.run if base else None, run) if r is not None and r.unstarted and r.problem),
                "")
    if said:   # the runner is not installed: its own message names what to install
        raise ProbeUnrunnable(f"{file_of(bad[0].test)}: {said}")
    first = (next((f"{r.test}: {r.message}" for r in base_rows if r.outcome == "error" and r.message), "")
             or (base.run.problem if base else "")
             or next((f"{r.test}: {r.message}" for r in bad if r.message), f"{bad[0].test}: {bad[0].outcome}"))
    first = " ".join(first.replace("E   ", "").split())[:400]
    ran_with = f" (tests ran with {run.about})" if run.about else ""   # which interpreter lacked the module
    raise ProbeUnrunnable(f"{first} — no test ran to an outcome on the original tree, so nothing was checked"
                          f"{ran_with}; {_fix(bad[0].test)}")


def _classify(row: TestOutcome, base: BaseRun | None, base_rows: list[TestOutcome], ctx: ToolContext) -> Finding:
    if base is None or not (ctx.snapshot.base / file_of(row.test)).is_file():
        return Finding(row.test, row.outcome, None, "new", row.message)
    before = _status(base_rows, row.test)
    if before is None:
        kind = "new" if base.run.complete else "unknown"
    elif before == "passed":
        kind = "flaky" if row.test in base.flaky else "suspect"
    else:
        kind = "not-run" if before == "skipped" else "pre-existing"
    found = Finding(row.test, row.outcome, before, kind, row.message)
    if kind == "flaky":
        found.runs, found.known = {"head": [row.outcome], "base": base.flaky[row.test]}, True
    return found


def _rerun(ctx: ToolContext, suspects: list[Finding], base: BaseRun) -> int:
    """Re-run the suspected ids on both trees; a suspect stays a regression only if every run agrees. A base
    pass from the cache counts as one of base's runs (as many base outcomes as a cold review has), but never
    alone: with `test_reruns = 0` a cached base still gets one fresh run."""
    n = ctx.policy.tests.test_reruns
    base_runs = max(n, 1) if base.cached else n
    ids = [f.test for f in suspects]
    snap, policy, env = ctx.snapshot, ctx.policy, ctx.env
    with ContextPool(max_workers=2) as pool:
        on_head = pool.submit(lambda: [run_tests(snap.head, ids, policy, env=env) for _ in range(n)])
        on_base = pool.submit(lambda: [run_tests(snap.base, ids, policy, env=env) for _ in range(base_runs)])
        heads = [head_rows(r, ids, snap.head, snap.base) for r in on_head.result()]
        bases = [_normalized(r.outcomes) for r in on_base.result()]
    for f in suspects:
        h = [f.head, *(_status(rows, f.test) or "error" for rows in heads)]
        b = [f.base or "passed", *(_status(rows, f.test) or "absent" for rows in bases)]
        f.runs = {"head": h, "base": b}
        f.kind = "regression" if all(x in BAD for x in h) and all(x == "passed" for x in b) else "flaky"
    flaky = {f.test: f.runs["base"] for f in suspects if f.runs and len(set(f.runs["base"])) > 1}
    mark_flaky(snap.base, list(base.targets), policy, env, base, flaky)
    return n


def compare(ctx: ToolContext, targets: list[str], head: TestRun, base: BaseRun | None) -> Comparison:
    """Every head test that did not pass, classified against `base` (the same targets run on base)."""
    base_rows = _normalized(base.run.outcomes) if base else []
    rows = head_rows(head, targets, ctx.snapshot.head, ctx.snapshot.base)
    rows += _lost(rows, base_rows, head, ctx.snapshot.head, ctx.snapshot.base)
    _check_runnable(rows, head, base, base_rows, ctx)
    out = Comparison(rows, [_classify(r, base, base_rows, ctx) for r in rows if r.outcome in BAD], base)
    suspects = [f for f in out.findings if f.kind == "suspect"]
    if suspects and base is not None:
        if ctx.policy.tests.test_reruns or base.cached:
            out.reruns = _rerun(ctx, suspects, base)
        else:
            for f in suspects:
                f.kind = "regression"
    return out
