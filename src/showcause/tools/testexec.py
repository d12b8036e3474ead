"""How allowlisted tests are found and run, through the runner each file belongs to (`tools.runners`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from showcause.core.errors import ToolArgumentError
from showcause.core.threads import ContextPool
from showcause.policy import Policy
from showcause.sandbox.paths import normalize_relpath
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult, available_isolation
from showcause.snapshot.diff import FileChange
from showcause.tools.basecache import cache_get, cache_put
from showcause.tools.runners.base import (
    Collection,
    Runner,
    TestOutcome,
    TestRun,
    group_key,
    merge_procs,
)
from showcause.tools.runners.globs import discover_tests
from showcause.tools.runners.pytest_reuse import reuse_refusal
from showcause.tools.runners.registry import RUNNERS, runner_for
from showcause.tools.testlanes import batches, killed, run_lane

__all__ = ["BaseRun", "TestOutcome", "TestRun", "allowed_tests", "base_collection", "discover_tests",
           "head_tests_from_base", "mark_flaky", "run_base_tests", "run_tests", "split_test_id"]


_ALLOWLIST = "allowlist-2"   # {"files": [...], "pytest": [...], "sensitive": [...] | null}


def _discover(tree: Path, policy: Policy, env: ProjectEnv, *, pytest: bool = True) -> dict[str, Any]:
    """Each runner's discovery (pytest's own collection, in the sandbox), kept for the runner that claims the
    file; pytest's files and sensitive files beside (`pytest`: False leaves pytest out)."""
    found: set[str] = set()
    by_pytest: list[str] = []
    sensitive: list[str] | None = []
    for runner in RUNNERS.entries():
        if runner.name == "pytest" and not pytest:
            continue
        collect = getattr(runner, "collect", None)
        coll = collect(tree, policy, env) if callable(collect) and runner.name == "pytest" else None
        files = coll.files if isinstance(coll, Collection) else runner.discover(tree, policy, env)
        mine = [f for f in files if runner_for(tree, f) is runner]
        found.update(mine)
        if isinstance(coll, Collection):
            by_pytest = sorted(mine)
            sensitive = None if coll.sensitive is None else sorted(coll.sensitive)
    return {"files": sorted(found), "pytest": by_pytest, "sensitive": sensitive}


def _valid(hit: Any) -> bool:
    return (isinstance(hit, dict) and all(isinstance(hit.get(k), list) for k in ("files", "pytest"))
            and all(isinstance(f, str) for k in ("files", "pytest") for f in hit[k])
            and (hit.get("sensitive") is None or isinstance(hit["sensitive"], list)))


def base_collection(tree: Path, policy: Policy, env: ProjectEnv, *, cached_only: bool = False) -> dict[str, Any] | None:
    """Base's discovery through the base cache (`_discover`'s record); None when `cached_only` and not cached."""
    hit = cache_get(tree, _ALLOWLIST, "", policy, env.cache_key())
    if _valid(hit):
        return hit
    if cached_only:
        return None
    found = _discover(tree, policy, env)
    cache_put(tree, _ALLOWLIST, "", policy, found, env.cache_key())
    return found


def allowed_tests(tree: Path, policy: Policy, env: ProjectEnv, *, base: bool = False) -> list[str]:
    """Every test file of `tree` that its own runner would run: each runner's discovery (pytest's own
    collection, in the sandbox), kept for the runner that claims the file. `base`: through the base cache."""
    found = base_collection(tree, policy, env) if base else _discover(tree, policy, env)
    return list(found["files"]) if found is not None else []


def head_tests_from_base(trees: tuple[Path, Path], changes: Mapping[str, FileChange], base: dict[str, Any],
                         policy: Policy, env: ProjectEnv) -> list[str] | None:
    """Head's allowlist with pytest's part taken from base's collection (`pytest_reuse`), or None when the
    change may alter what pytest collects (then head is collected). `trees`: (base, head)."""
    if not policy.tests.reuse_collection or reuse_refusal(changes, base.get("sensitive"), trees) is not None:
        return None
    head = trees[1]
    others = _discover(head, policy, env, pytest=False)["files"]
    return sorted({*others, *(f for f in base["pytest"] if (head / f).is_file())})


def split_test_id(raw: str) -> tuple[str, str | None]:
    """'tests/test_a.py::test_x' -> ('tests/test_a.py', 'test_x'); the file part is normalized."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolArgumentError("test must be a non-empty string")
    if raw.lstrip().startswith("-"):
        raise ToolArgumentError("test must be a test file or test id, not an option")
    file_part, sep, name = raw.strip().partition("::")
    rel = normalize_relpath(file_part.removeprefix("./"))
    if sep and (not name or any(ord(c) < 32 for c in name)):
        raise ToolArgumentError(f"malformed test id {raw!r}")
    return rel, (name if sep else None)


def _charge_killed(outcomes: list[TestOutcome], targets: list[str], proc: ProcResult) -> str:
    """Why the run was killed; whatever had not reported by then is charged to its target."""
    rc = proc.returncode
    problem = (f"the run was killed after {proc.seconds:.0f} s (wall timeout)" if proc.timed_out
               else f"the run was killed (exit {rc}: out of memory or a crash)")
    for target in targets:
        file, _, name = target.partition("::")
        if not any(o.test == target or (not name and o.test.startswith(file + "::")) for o in outcomes):
            outcomes.append(TestOutcome(target, "timeout" if proc.timed_out else "error", problem))
    return problem


def _groups(tree: Path, targets: list[str]) -> list[tuple[Runner, list[str]]]:
    """The processes the targets take: each with its runner (one per file for a per-file runner; one for
    all targets of a runner that takes many, or per project of a runner that has several in one tree: pytest's
    monorepo packages), in the order the targets came."""
    groups: dict[tuple[str, str], tuple[Runner, list[str]]] = {}
    for target in targets:
        file = target.split("::", 1)[0]
        runner = runner_for(tree, file)
        if runner is None:
            raise ToolArgumentError(f"{file}: no test runner for this file type (pytest for .py, "
                                    "node --test, jest, vitest or mocha for JavaScript)")
        key = (runner.name, file if runner.per_file else group_key(runner, tree, file))
        groups.setdefault(key, (runner, []))[1].append(target)
    return list(groups.values())


_LANES = 2   # copies a run's groups are spread over (the process slots of a 2-core host)


def run_tests(tree: Path, tests: str | list[str], policy: Policy, *, timeout_s: float | None = None,
              env: ProjectEnv | None = None) -> TestRun:
    """Run test files or test ids in fresh copies of `tree`, in `env`: each through its own runner. Several
    groups (monorepo packages, a per-file runner's files) are dealt round-robin over two copies that run at
    once, each copy's groups in order, so the same targets always meet the same neighbours (base runs exactly
    what head ran). A batching runner's files share a process per project (`testlanes.batches`)."""
    env = env or ProjectEnv()
    raw = [tests] if isinstance(tests, str) else list(tests)
    split = [split_test_id(t) for t in raw]
    targets = [f"{f}::{n}" if n else f for f, n in split]
    groups = batches(tree, _groups(tree, targets), _LANES, env)
    lanes = [groups[i::_LANES] for i in range(min(_LANES, len(groups)))] or [[]]
    if len(lanes) == 1:
        ran = [run_lane(tree, lanes[0], policy, timeout_s, env)]
    else:
        with ContextPool(max_workers=len(lanes)) as pool:
            ran = list(pool.map(lambda lane: run_lane(tree, lane, policy, timeout_s, env), lanes))
    # Back in the groups' own order: lane i holds groups i, i + lanes, ...
    rows = [row for i in range(len(groups)) for row in ran[i % len(lanes)][i // len(lanes)]]
    outcomes = [o for row in rows for o in row.outcomes]
    procs = [proc for row in rows for proc in row.procs]
    started = [t for row in rows if row.started for t in row.targets]
    unstarted = [row.problem for row in rows if not row.started]
    about = next((row.about for row in rows if row.about), "")
    problems = list(dict.fromkeys(unstarted))
    if not procs:
        return TestRun((), _unstarted(policy), "; ".join(problems), unstarted=True)
    proc = merge_procs(procs)
    if killed(proc):
        problems.append(_charge_killed(outcomes, started, proc))
    elif not outcomes:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        problems.append(f"no test results (exit {proc.returncode}): {' | '.join(tail)[:400]}")
    return TestRun(tuple(outcomes), proc, "; ".join(problems), unstarted=bool(unstarted), about=about)


def _unstarted(policy: Policy) -> ProcResult:
    """The process result of a run that started nothing (at the level it would have run at)."""
    return ProcResult(argv=(), returncode=None, stdout="", stderr="", timed_out=False, truncated=False,
                      isolation=available_isolation(policy), seconds=0.0, root="", out="")


@dataclass(frozen=True)
class BaseRun:
    """The base side of a comparison: the run, whether it came from the base cache, and the tests an earlier
    review saw flaky on this tree (test id -> the outcomes of its runs)."""

    run: TestRun
    cached: bool = False
    flaky: dict[str, list[str]] = field(default_factory=dict)
    targets: tuple[str, ...] = ()    # what base was asked to run (the key of its base cache entry)


def _cache_args(tests: list[str], env: ProjectEnv) -> tuple[str, dict[str, Any]]:
    return "\n".join(tests), env.cache_key()


def _not_found(run: TestRun, targets: list[str]) -> list[str]:
    """The test ids pytest refused as not found (a test new on head, asked for on base): it then runs nothing."""
    text = run.proc.stdout + run.proc.stderr
    return [t for t in targets if "::" in t and re.search(rf"not found: \S*{re.escape(t)}\s", text + "\n")]


def run_base_tests(tree: Path, tests: list[str], policy: Policy, env: ProjectEnv | None = None) -> BaseRun:
    """`run_tests` on a base tree, through the base cache (complete runs only). A test id that does not exist
    on base is left out and the rest run again: pytest runs nothing when one target is not found."""
    env = env or ProjectEnv()
    key, extra = _cache_args(tests, env)
    hit = cache_get(tree, "run_tests", key, policy, extra)
    if isinstance(hit, dict) and isinstance(hit.get("outcomes"), list):
        proc = ProcResult(argv=(), returncode=int(hit["returncode"]), stdout="", stderr="", timed_out=False,
                          truncated=False, isolation=str(hit["isolation"]), seconds=0.0, root="", out="",
                          notes=("from the base cache",))
        flaky = hit.get("flaky")
        return BaseRun(TestRun(tuple(TestOutcome(*o) for o in hit["outcomes"]), proc), True,
                       {str(k): [str(x) for x in v] for k, v in flaky.items()} if isinstance(flaky, dict) else {},
                       tuple(tests))
    run = run_tests(tree, tests, policy, env=env)
    absent = _not_found(run, tests) if not run.outcomes else []
    if absent and len(absent) < len(tests):
        run = run_tests(tree, [t for t in tests if t not in absent], policy, env=env)
    if run.complete:
        _store(tree, tests, policy, env, run, {})
    return BaseRun(run, targets=tuple(tests))


def _store(tree: Path, tests: list[str], policy: Policy, env: ProjectEnv, run: TestRun,
           flaky: dict[str, list[str]]) -> None:
    key, extra = _cache_args(tests, env)
    cache_put(tree, "run_tests", key, policy, extra=extra, value={
        "outcomes": [[o.test, o.outcome, o.message] for o in run.outcomes],
        "returncode": run.proc.returncode, "isolation": run.proc.isolation, "flaky": flaky})


def mark_flaky(tree: Path, tests: list[str], policy: Policy, env: ProjectEnv, base: BaseRun,
               flaky: dict[str, list[str]]) -> None:
    """Record in the base cache entry of `tests` that these tests' outcomes differ between runs of `tree`:
    their pass is never served as a pass again."""
    if flaky and base.run.complete:
        _store(tree, tests, policy, env or ProjectEnv(), base.run, {**base.flaky, **flaky})
