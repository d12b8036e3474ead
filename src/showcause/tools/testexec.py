"""How allowlisted tests are found and run, through the runner each file belongs to (`tools.runners`)."""

from __future__ import annotations

from pathlib import Path

from showcause.core.errors import ToolArgumentError
from showcause.sandbox.paths import normalize_relpath
from showcause.sandbox.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult, run_sandboxed
from showcause.sandbox.workspace import fresh_copy
from showcause.tools.basecache import cache_get, cache_put
from showcause.tools.runners.base import Runner, TestOutcome, TestRun, merge_procs
from showcause.tools.runners.globs import discover_tests, glob_to_regex
from showcause.tools.runners.registry import RUNNERS, runner_for

__all__ = ["TestOutcome", "TestRun", "allowed_tests", "discover_tests", "glob_to_regex", "run_base_tests", "run_tests",
           "split_test_id"]


def allowed_tests(tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
    """Every test file of `tree` that its own runner would run: each runner's discovery, kept for the
    runner that claims the file."""
    found: set[str] = set()
    for runner in RUNNERS.entries():
        found.update(f for f in runner.discover(tree, policy, env) if runner_for(tree, f) is runner)
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


def _groups(tree: Path, targets: list[str]) -> tuple[Runner, list[list[str]]]:
    """The one runner for all targets, and the target lists its processes take (one per file for a
    per-file runner)."""
    found: dict[str, Runner] = {}
    for target in targets:
        file = target.split("::", 1)[0]
        runner = runner_for(tree, file)
        if runner is None:
            raise ToolArgumentError(f"{file}: no test runner for this file type (pytest for .py, "
                                    "node --test, jest, vitest or mocha for JavaScript)")
        found[runner.name] = runner
    if len(found) > 1:
        raise ToolArgumentError(f"run the tests of each runner in separate calls ({', '.join(sorted(found))})")
    runner = next(iter(found.values()))
    if not runner.per_file:
        return runner, [targets]
    by_file: dict[str, list[str]] = {}
    for target in targets:
        by_file.setdefault(target.split("::", 1)[0], []).append(target)
    return runner, list(by_file.values())


def run_tests(tree: Path, tests: str | list[str], policy: Policy, *, timeout_s: float | None = None,
              env: ProjectEnv | None = None) -> TestRun:
    """Run test files or test ids (all of one runner) in one fresh copy of `tree`, in `env`."""
    env = env or ProjectEnv()
    raw = [tests] if isinstance(tests, str) else list(tests)
    split = [split_test_id(t) for t in raw]
    targets = [f"{f}::{n}" if n else f for f, n in split]
    runner, groups = _groups(tree, targets)
    outcomes: list[TestOutcome] = []
    procs: list[ProcResult] = []
    with fresh_copy(tree) as dirs:
        for group in groups:
            runner.prepare(dirs.out)
            cmd = runner.command(group, policy, env)
            procs.append(run_sandboxed(cmd.argv, workspace=dirs.workspace, out_dir=dirs.out, policy=policy,
                                       memory_mb=policy.process.test_memory_mb, timeout_s=timeout_s, env=cmd.env,
                                       address_mb=cmd.address_mb, mounts=env.mounts, cwd=cmd.cwd))
            outcomes += runner.read(dirs.out, group)
    proc = merge_procs(procs)
    problem = ""
    rc = proc.returncode
    if proc.timed_out or (rc is not None and (rc < 0 or rc in (128 + 9, 128 + 11))):
        problem = _charge_killed(outcomes, targets, proc)
    elif not outcomes:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        problem = f"no test results (exit {proc.returncode}): {' | '.join(tail)[:400]}"
    return TestRun(tuple(outcomes), proc, problem)


def run_base_tests(tree: Path, tests: list[str], policy: Policy, env: ProjectEnv | None = None) -> TestRun:
    """`run_tests` on a base tree, through the base cache (complete runs only)."""
    test = "\n".join(tests)
    env = env or ProjectEnv()
    extra = {"python": env.python, "mounts": [m.to_json() for m in env.mounts]}
    hit = cache_get(tree, "run_tests", test, policy, extra)
    if isinstance(hit, dict) and isinstance(hit.get("outcomes"), list):
        proc = ProcResult(argv=(), returncode=int(hit["returncode"]), stdout="", stderr="", timed_out=False,
                          truncated=False, isolation=str(hit["isolation"]), seconds=0.0, root="", out="",
                          notes=("from the base cache",))
        return TestRun(tuple(TestOutcome(*o) for o in hit["outcomes"]), proc)
    run = run_tests(tree, tests, policy, env=env)
    if run.complete:
        cache_put(tree, "run_tests", test, policy, extra=extra, value={
            "outcomes": [[o.test, o.outcome, o.message] for o in run.outcomes],
            "returncode": run.proc.returncode, "isolation": run.proc.isolation})
    return run
