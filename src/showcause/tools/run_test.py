"""`run_test`: one allowlisted test file or test id, on head and — for anything not passing — on base."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, field_validator

from showcause.core.artifacts import Artifact, Shown
from showcause.core.errors import ToolArgumentError
from showcause.tools.base import Args, ToolContext, ToolOutput
from showcause.tools.testexec import TestOutcome, allowed_tests, run_base_tests, run_tests, split_test_id

__all__ = ["RunTestTool", "allowlist"]

_BAD = ("failed", "error", "timeout")
_MAX_TARGETS = 50


class RunTestArgs(Args):
    test: str | list[str] = Field(
        description="An allowlisted test file (e.g. tests/test_api.py) or a test id inside one "
                    "(tests/test_api.py::test_login, test/api.test.js::name); or a list of them, run together.")

    @field_validator("test")
    @classmethod
    def _test(cls, v: str | list[str]) -> str | list[str]:
        if isinstance(v, list) and not 0 < len(v) <= _MAX_TARGETS:
            raise ValueError(f"give 1 to {_MAX_TARGETS} tests")
        return v


def allowlist(ctx: ToolContext) -> list[str]:
    key = f"allowlist:{ctx.side}"
    if key not in ctx.cache:
        ctx.cache[key] = sorted(ctx.tests) if ctx.tests else allowed_tests(ctx.snapshot.head, ctx.policy, ctx.env)
    return ctx.cache[key]


def _base_outcome(test: str, file: str, base: list[TestOutcome] | None) -> str | None:
    if base is None:
        return None
    for o in base:
        if o.test == test:
            return o.outcome
    if test == file:  # a file-level error on head: compare with the whole file on base
        outs = [o.outcome for o in base if o.test.startswith(file + "::")]
        if outs:
            return "passed" if all(x in ("passed", "skipped") for x in outs) else "failed"
    return None


class RunTestTool:
    name: ClassVar[str] = "run_test"
    description: ClassVar[str] = (
        "Run one allowlisted test file or test id in the sandbox on the changed tree (head); any test that "
        "does not pass is also run on the original tree (base) to show whether the change broke it.")
    Arguments: ClassVar[type[Args]] = RunTestArgs
    read_only: ClassVar[bool] = False   # it runs the repository's code (in the sandbox)

    def run(self, ctx: ToolContext, args: RunTestArgs) -> ToolOutput:  # type: ignore[override]
        raw = [args.test] if isinstance(args.test, str) else args.test
        allowed = allowlist(ctx)
        targets: list[str] = []
        for item in raw:
            file, name = split_test_id(item)
            if file not in allowed:
                names = ", ".join(allowed[:15]) + (" …" if len(allowed) > 15 else "")
                raise ToolArgumentError(f"{file} is not an allowlisted test file; allowed: {names or 'none'}")
            targets.append(f"{file}::{name}" if name else file)
        targets = list(dict.fromkeys(targets))
        label = " ".join(targets)
        head = run_tests(ctx.snapshot.head, targets, ctx.policy, env=ctx.env)
        if head.problem and not head.outcomes:
            return ToolOutput(text=f"run_test {label}: {head.problem}", ok=False, isolation=head.proc.isolation)
        failing = [o for o in head.outcomes if o.outcome in _BAD]
        # The base run repeats only what failed on head and exists on base.
        base_targets = list(dict.fromkeys(
            o.test for o in failing if (ctx.snapshot.base / split_test_id(o.test)[0]).is_file()))
        base_run = run_base_tests(ctx.snapshot.base, base_targets, ctx.policy, ctx.env) if base_targets else None
        base_outcomes = list(base_run.outcomes) if base_run and base_run.complete else None
        results: list[dict[str, Any]] = []
        lines: list[str] = []
        artifacts: list[Artifact] = []
        shown: list[Shown] = []
        counts: dict[str, int] = {}
        # What did not pass comes first: a long list of passes must never push a failure out of the text.
        for o in sorted(head.outcomes, key=lambda x: (x.outcome not in _BAD, x.outcome != "skipped", x.test)):
            counts[o.outcome] = counts.get(o.outcome, 0) + 1
            file = o.test.split("::", 1)[0]
            on_base = (ctx.snapshot.base / file).is_file()
            base = _base_outcome(o.test, file, base_outcomes) if o.outcome in _BAD else None
            results.append({"test": o.test, "head": o.outcome, "base": base})
            line = f"{o.outcome.upper()} {o.test}"
            if o.outcome in _BAD:
                new = base is None and (not on_base or base_outcomes is not None)
                if base == "passed":
                    line += " [base: passed — broken by this change]"
                elif new:
                    line += " [base: absent — new in this change]"
                elif base is None:
                    line += " [base: unknown — the base run did not finish]"
                else:
                    line += f" [base: {base} — already failing before this change]"
                if o.message:
                    line += f" — {o.message[:240]}"
                # The artifact is a test the change made fail: passing on base, or new and failing.
                if base == "passed" or new:
                    artifacts.append(Artifact("test_regression", file, None, f"{o.test}: {o.outcome}", line,
                                              subject=o.test))
            lines.append(line)
            shown.append(Shown(file, None, line, test=o.test))
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        head_line = f"run_test {label}: {summary} on head; isolation {head.proc.isolation}"
        head_line += "".join(f"; {x}" for x in (head.about, head.problem) if x)   # which pytest ran; what went wrong
        if base_run is not None and base_run.problem:
            head_line += f"; base run: {base_run.problem}"
        return ToolOutput(text="\n".join([head_line, *lines]), shown=shown, artifacts=artifacts,
                          isolation=head.proc.isolation, results=results, advice="run a single test id")
