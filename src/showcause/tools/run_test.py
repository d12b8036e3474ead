"""`run_test`: allowlisted test files or test ids, on head and the same on base (`tools.differential`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from pydantic import Field, field_validator

from showcause.core.artifacts import Artifact, Shown
from showcause.core.errors import ToolArgumentError
from showcause.core.threads import ContextPool
from showcause.tools.base import Args, ToolContext, ToolOutput, kept_text
from showcause.tools.differential import BAD, Comparison, Finding, base_after, compare, file_of, start_base
from showcause.tools.runners.registry import runner_for
from showcause.tools.testexec import (
    TestRun,
    allowed_tests,
    base_collection,
    head_tests_from_base,
    run_tests,
    split_test_id,
)

__all__ = ["MAX_TARGETS", "RunTestTool", "allowlist"]

MAX_TARGETS = 50


class RunTestArgs(Args):
    test: str | list[str] = Field(
        description="An allowlisted test file (e.g. tests/test_api.py) or a test id inside one "
                    "(tests/test_api.py::test_login, test/api.test.js::name); or a list of them, run together.")

    @field_validator("test")
    @classmethod
    def _test(cls, v: str | list[str]) -> str | list[str]:
        if isinstance(v, list) and not 0 < len(v) <= MAX_TARGETS:
            raise ValueError(f"give 1 to {MAX_TARGETS} tests")
        return v


def allowlist(ctx: ToolContext) -> list[str]:
    """The test files run_test may run: a case's own list, else what the runners collect on head together with
    what they collect on base and head still holds — a change that breaks collection (a conftest that exits)
    must not hide the tests it stops from running."""
    key = f"allowlist:{ctx.side}"
    if key not in ctx.cache:
        if ctx.tests:
            ctx.cache[key] = sorted(ctx.tests)
        else:
            snap = ctx.snapshot
            cached = base_collection(snap.base, ctx.policy, ctx.env, cached_only=True)
            reused = (head_tests_from_base((snap.base, snap.head), snap.diff.files, cached, ctx.policy, ctx.env)
                      if cached else None)
            if cached is not None and reused is not None:
                head, base = reused, cached["files"]
            else:   # both trees at once (base is often cached): each collection is a process start of its own
                with ContextPool(max_workers=2) as pool:
                    on_base = pool.submit(allowed_tests, snap.base, ctx.policy, ctx.env, base=True)
                    head = allowed_tests(snap.head, ctx.policy, ctx.env)
                    base = on_base.result()
            kept = [f for f in base if (snap.head / f).is_file() and runner_for(snap.head, f) is not None]
            ctx.cache[key] = sorted({*head, *kept})
    return ctx.cache[key]


_NOTE = {
    "new": "[base: absent — new in this change]",
    "unknown": "[base: unknown — the base run did not finish]",
    "not-run": "[base: skipped — not run before this change]",
}


def _line(f: Finding) -> str:
    if f.kind == "flaky" and f.runs:
        earlier = " (on base: as an earlier review recorded)" if f.known else ""
        return (f"FLAKY {f.test} [head: {', '.join(f.runs['head'])}; base: {', '.join(f.runs['base'])}{earlier} — "
                "its outcome differs between runs of the same tree: not evidence against the change]")
    if f.kind == "regression":
        runs = (f" (failed all {len(f.runs['head'])} runs on head, passed all {len(f.runs['base'])} on base)"
                if f.runs else "")
        note = f"[base: passed — broken by this change]{runs}"
    else:
        note = _NOTE.get(f.kind, f"[base: {f.base} — already failing before this change]")
    return f"{f.head.upper()} {f.test} {note}" + (f" — {f.message[:240]}" if f.message else "")


def _artifact(f: Finding, line: str) -> Artifact:
    # What a reader needs to believe the block: an error (a crash, a collection error, no result) says what it
    # was, and a failure its first line (the assertion or the exception): the outcome alone would not.
    if f.head == "error":
        said = " ".join(f.message.split())[:200]
    else:
        said = next((ln.strip() for ln in f.message.splitlines() if ln.strip()), "")[:200]
    detail = f"{f.test}: {f.head}" + (f" — {said}" if said else "")
    return Artifact("test_regression", file_of(f.test), None, detail, line, subject=f.test)


def _counted(top: list[str], lines: list[str], artifacts: list[Artifact],
             limit: int) -> tuple[list[str], list[Artifact]]:
    """Every regression stays evidence when the output cap cuts its own line: one line at the top, where the
    cap never reaches, counts them all (each is named in the call's results) and shows those whose own line
    was cut. Without a cut the text is left as it is."""
    whole = "\n".join([*top, *lines])
    if not artifacts or kept_text(whole, limit) == whole:
        return top, artifacts
    files = len({a.file for a in artifacts})
    count = (f"BROKEN {len(artifacts)} test(s) in {files} file(s): failed every run on head and passed every run "
             "on base, or new and failed; those the output cap cuts below are named in this call's results")
    top = [top[0], count, *top[1:]]
    shown = set(kept_text("\n".join([*top, *lines]), limit).split("\n"))
    return top, [a if a.line_text in shown else replace(a, line_text=count) for a in artifacts]


def _result(f: Finding | None, test: str, head: str) -> dict[str, Any]:
    row: dict[str, Any] = {"test": test, "head": head, "base": f.base if f else None}
    if f is not None and f.runs:
        row["runs"] = f.runs
    if f is not None and f.kind == "flaky":
        row["flaky"] = True
    return row


def _head_line(label: str, cmp: Comparison, head: TestRun, base_targets: int) -> str:
    """`base_targets`: how many of the targets base has (a file new on head has none)."""
    counts: dict[str, int] = {}
    for o in cmp.rows:
        counts[o.outcome] = counts.get(o.outcome, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no tests"
    line = f"run_test {label}: {summary} on head; isolation {head.proc.isolation}"
    if cmp.base is not None:
        line += f"; base ran the same {base_targets} target(s)" + (" (from the base cache)" if cmp.base.cached else "")
    elif base_targets:
        line += "; base not run: every test passed on head and every test its file defines gave a result"
    suspects = sum(1 for f in cmp.findings if f.runs and not f.known)
    if cmp.reruns and suspects:
        line += f"; {suspects} test(s) that failed on head and passed on base re-run {cmp.reruns}x on each tree"
    line += "".join(f"; {x}" for x in (head.about, head.problem) if x)   # which pytest ran; what went wrong
    if cmp.base is not None and cmp.base.run.problem:
        line += f"; base run: {cmp.base.run.problem}"
    return line


def _targets(ctx: ToolContext, raw: list[str]) -> list[str]:
    allowed = allowlist(ctx)
    targets: list[str] = []
    for item in raw:
        file, name = split_test_id(item)
        if file not in allowed:
            names = ", ".join(allowed[:15]) + (" …" if len(allowed) > 15 else "")
            raise ToolArgumentError(f"{file} is not an allowlisted test file; allowed: {names or 'none'}")
        targets.append(f"{file}::{name}" if name else file)
    return list(dict.fromkeys(targets))


class RunTestTool:
    name: ClassVar[str] = "run_test"
    description: ClassVar[str] = (
        "Run allowlisted test files or test ids in the sandbox on the changed tree (head) and the same ones on "
        "the original tree (base); a test failing on head and passing on base is re-run on both before it "
        "counts as broken by the change, and one whose outcome differs between runs is reported flaky.")
    Arguments: ClassVar[type[Args]] = RunTestArgs
    read_only: ClassVar[bool] = False   # it runs the repository's code (in the sandbox)

    def run(self, ctx: ToolContext, args: RunTestArgs) -> ToolOutput:  # type: ignore[override]
        asked = _targets(ctx, [args.test] if isinstance(args.test, str) else args.test)
        label = " ".join(asked)
        # A test file the change deleted has nothing to run: a deleted test is not a failure.
        deleted = [t for t in asked if not (ctx.snapshot.head / file_of(t)).is_file()]
        gone = [f"DELETED {t} [removed by this change: not run, not a failure]" for t in deleted]
        targets = [t for t in asked if t not in deleted]
        if not targets:
            return ToolOutput(text="\n".join([f"run_test {label}: nothing to run on head", *gone]))
        with ContextPool(max_workers=1) as pool:
            # With cores to spare base runs beside head (latency); otherwise after head, and only when head's
            # outcomes need it (`base_needed`): not at all when every test passed and none went missing.
            early = pool.submit(start_base, ctx, targets) if ctx.eager_base else None
            head = run_tests(ctx.snapshot.head, targets, ctx.policy, env=ctx.env)
            base = early.result() if early is not None else base_after(ctx, targets, head)
        cmp = compare(ctx, targets, head, base)
        by_test = {f.test: f for f in cmp.findings}
        results: list[dict[str, Any]] = []
        lines: list[str] = []
        artifacts: list[Artifact] = []
        shown: list[Shown] = []
        # What did not pass comes first: a long list of passes must never push a failure out of the text.
        for o in sorted(cmp.rows, key=lambda x: (x.outcome not in BAD, x.outcome != "skipped", x.test)):
            f = by_test.get(o.test) if o.outcome in BAD else None
            line = _line(f) if f is not None else f"{o.outcome.upper()} {o.test}"
            results.append(_result(f, o.test, o.outcome))
            if f is not None and f.kind in ("regression", "new"):
                artifacts.append(_artifact(f, line))
            lines.append(line)
            shown.append(Shown(file_of(o.test), None, line, test=o.test))
        base_targets = sum(1 for t in targets if (ctx.snapshot.base / file_of(t)).is_file())
        top = [_head_line(label, cmp, head, base_targets), *gone]
        top, artifacts = _counted(top, lines, artifacts, ctx.policy.output.max_chars)
        return ToolOutput(text="\n".join([*top, *lines]), shown=shown, artifacts=artifacts,
                          isolation=head.proc.isolation, results=results, advice="run a single test id")
