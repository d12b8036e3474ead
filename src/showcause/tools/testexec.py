"""How allowlisted tests are found and run, through the runner each file belongs to (`tools.runners`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from showcause.core.errors import ToolArgumentError
from showcause.sandbox.paths import normalize_relpath
from showcause.sandbox.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult, available_isolation, run_sandboxed
from showcause.sandbox.workspace import fresh_copy
from showcause.tools.basecache import cache_get, cache_put
from showcause.tools.runners.base import Runner, TestOutcome, TestRun, describe_run, group_key, merge_procs
from showcause.tools.runners.globs import discover_tests, glob_to_regex
from showcause.tools.runners.registry import RUNNERS, runner_for

__all__ = ["BaseRun", "TestOutcome", "TestRun", "allowed_tests", "discover_tests", "glob_to_regex", "mark_flaky",
           "run_base_tests", "run_tests", "split_test_id"]


def allowed_tests(tree: Path, policy: Policy, env: ProjectEnv, *, base: bool = False) -> list[str]:
    """Every test file of `tree` that its own runner would run: each runner's discovery (pytest's own
    collection, in the sandbox), kept for the runner that claims the file. `base`: through the base cache."""
    hit = cache_get(tree, "allowlist", "", policy, env.cache_key()) if base else None
    if isinstance(hit, list) and all(isinstance(f, str) for f in hit):
        return hit
    found: set[str] = set()
    for runner in RUNNERS.entries():
        found.update(f for f in runner.discover(tree, policy, env) if runner_for(tree, f) is runner)
    if base:
        cache_put(tree, "allowlist", "", policy, sorted(found), env.cache_key())
    return sorted(found)


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


def run_tests(tree: Path, tests: str | list[str], policy: Policy, *, timeout_s: float | None = None,
              env: ProjectEnv | None = None) -> TestRun:
    """Run test files or test ids in one fresh copy of `tree`, in `env`: each through its own runner."""
    env = env or ProjectEnv()
    raw = [tests] if isinstance(tests, str) else list(tests)
    split = [split_test_id(t) for t in raw]
    targets = [f"{f}::{n}" if n else f for f, n in split]
    groups = _groups(tree, targets)
    outcomes: list[TestOutcome] = []
    procs: list[ProcResult] = []
    unstarted: list[str] = []
    started: list[str] = []
    about = ""
    with fresh_copy(tree) as dirs:
        for runner, group in groups:
            cmd = runner.command(tree, group, policy, env)
            if cmd.problem:   # nothing to start (its runner is not installed): said, never a pass
                unstarted.append(cmd.problem)
                continue
            started += group
            runner.prepare(dirs.out)
            procs.append(run_sandboxed(cmd.argv, workspace=dirs.workspace, out_dir=dirs.out, policy=policy,
                                       memory_mb=policy.process.test_memory_mb, timeout_s=timeout_s, env=cmd.env,
                                       address_mb=cmd.address_mb, mounts=env.mounts, cwd=cmd.cwd))
            outcomes += runner.read(dirs.out, group)
            about = about or describe_run(runner, dirs.out, env)
    problems = list(dict.fromkeys(unstarted))
    if not procs:
        return TestRun((), _unstarted(policy), "; ".join(problems), unstarted=True)
    proc = merge_procs(procs)
    rc = proc.returncode
    if proc.timed_out or (rc is not None and (rc < 0 or rc in (128 + 9, 128 + 11))):
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
                       {str(k): [str(x) for x in v] for k, v in flaky.items()} if isinstance(flaky, dict) else {})
    run = run_tests(tree, tests, policy, env=env)
    absent = _not_found(run, tests) if not run.outcomes else []
    if absent and len(absent) < len(tests):
        run = run_tests(tree, [t for t in tests if t not in absent], policy, env=env)
    if run.complete:
        _store(tree, tests, policy, env, run, {})
    return BaseRun(run)


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
