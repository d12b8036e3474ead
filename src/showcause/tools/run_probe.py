"""`run_probe`: a test file the judge writes, run on throw-away copies of base and head.

The probe is written into a copy of each tree made for it alone, never into the trees the other tools read,
and run there as `run_test` runs tests (`testexec.run_tests`: the same runner, sandbox, environment and
limits), `[tests] probe_runs` times per tree. Nothing of it goes through the base cache: a probe is the
judge's own code, and its outcomes say nothing about any later review of the same tree.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from showcause.core.errors import ProbeUnrunnable, ToolArgumentError
from showcause.core.threads import ContextPool
from showcause.sandbox.paths import confine, normalize_relpath
from showcause.sandbox.workspace import fresh_copy
from showcause.tools.base import Args, ToolContext, ToolOutput
from showcause.tools.runners.registry import runner_for
from showcause.tools.testexec import TestRun, run_tests

__all__ = ["RunProbeTool", "probe_path"]

_PLAIN = re.compile(r"[\w.\-/]+")
_SCRIPT = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_SIDES = ("base", "head")
_BAD = ("failed", "error", "timeout")
ABSENT = "absent"   # a test a run did not report (its file failed to collect, the run was killed first)


class RunProbeArgs(Args):
    path: str = Field(description=(
        "Where the probe goes, relative to the repository root: a new Python test file pytest collects "
        "(test_*.py or *_test.py), a path that exists on neither tree (e.g. tests/test_probe_rounding.py)."))
    content: str = Field(description=(
        "The probe's text: a pytest test file (UTF-8, at most [tests] probe_max_bytes bytes) that imports the "
        "code under review and asserts what it should do."))


def _collected_name(rel: str) -> None:
    # `::` and `[` would make the path read as a test id; spaces and the like as more than one argument.
    if not _PLAIN.fullmatch(rel):
        raise ToolArgumentError(f"{rel!r}: a probe's path may hold letters, digits, '_', '-', '.' and '/' only")
    name = rel.rsplit("/", 1)[-1]
    if name.endswith(_SCRIPT):
        raise ToolArgumentError(f"{rel}: JavaScript and TypeScript probes are not supported yet; run_probe runs "
                                "Python test files with pytest only")
    if not (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))):
        raise ToolArgumentError(f"{rel}: not a test file pytest collects; name the probe test_*.py or *_test.py")


def _absent_from(tree: Path, side: str, rel: str) -> None:
    """`rel` is free on `tree`: no file there, and no symbolic link or file on the way to it."""
    _, inner = confine(tree, rel, must_exist=False)
    if inner != rel:
        raise ToolArgumentError(f"{rel}: a symbolic link on the {side} tree leads elsewhere ({inner!r}); give a path "
                                "with no link on it")
    if os.path.lexists(tree / rel):
        raise ToolArgumentError(f"{rel} exists on the {side} tree: a probe is a new file; choose a path on "
                                "neither tree")
    parts = rel.split("/")
    for i in range(1, len(parts)):
        above = tree.joinpath(*parts[:i])
        if os.path.lexists(above) and not above.is_dir():
            raise ToolArgumentError(f"{rel}: {'/'.join(parts[:i])} is a file on the {side} tree, not a directory")


def probe_path(ctx: ToolContext, raw: str) -> str:
    """The probe's path, normalized, or a ToolArgumentError saying why it cannot be one: absolute or escaping,
    not a name pytest collects, a JavaScript file, or a path one of the trees already has."""
    rel = normalize_relpath(raw)
    if not rel:
        raise ToolArgumentError("path must name a file, not the repository root")
    _collected_name(rel)
    snap = ctx.snapshot
    for side in _SIDES:
        _absent_from(snap.tree(side), side, rel)
    runner = runner_for(snap.head, rel)
    if runner is None or runner.name != "pytest":
        raise ToolArgumentError(f"{rel}: this project does not run it with pytest; run_probe runs pytest probes only")
    return rel


def _encoded(ctx: ToolContext, content: str) -> bytes:
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolArgumentError("content is not valid UTF-8 text (a lone surrogate)") from exc
    cap = ctx.policy.tests.probe_max_bytes
    if len(data) > cap:
        raise ToolArgumentError(f"content is {len(data)} bytes; a probe may have at most {cap} ([tests] "
                                "probe_max_bytes): probe one behaviour per file")
    return data


def _place(workspace: Path, rel: str, data: bytes) -> None:
    """Write the probe into the copy; never through a link (the copy keeps the tree's links as they are)."""
    parts = rel.split("/")
    for i in range(1, len(parts)):
        above = workspace.joinpath(*parts[:i])
        if above.is_symlink():
            raise ToolArgumentError(f"{rel}: {'/'.join(parts[:i])} is a symbolic link")
        above.mkdir(exist_ok=True)
    fd = os.open(workspace / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _runs(ctx: ToolContext, side: str, rel: str, data: bytes) -> list[TestRun]:
    """`probe_runs` runs of the probe on a copy of one tree; each run takes a fresh copy of that copy."""
    with fresh_copy(ctx.snapshot.tree(side)) as dirs:
        _place(dirs.workspace, rel, data)
        return [run_tests(dirs.workspace, [rel], ctx.policy, env=ctx.env) for _ in range(ctx.policy.tests.probe_runs)]


def _outcomes(run: TestRun, rel: str) -> dict[str, tuple[str, str]]:
    """Test id -> (outcome, message) of one run; a run that reported nothing is an error of the probe file."""
    found = {o.test: (o.outcome, o.message) for o in run.outcomes}
    if not found:
        rc = run.proc.returncode
        found[rel] = ("error", run.problem or f"no result (exit {rc})")
    return found


def _table(runs: dict[str, list[TestRun]], rel: str) -> list[dict[str, Any]]:
    """Per test id, in the order first reported: every run's outcome on each tree, and each failure's words."""
    per_side = {side: [_outcomes(r, rel) for r in runs[side]] for side in _SIDES}
    ids = list(dict.fromkeys(t for side in _SIDES for found in per_side[side] for t in found))
    rows: list[dict[str, Any]] = []
    for test in ids:
        row: dict[str, Any] = {"test": test}
        for side in _SIDES:
            got = [found.get(test, (ABSENT, "")) for found in per_side[side]]
            row[side] = [o for o, _ in got]
            row[f"{side}_messages"] = [m if o in _BAD else "" for o, m in got]
        rows.append(row)
    return rows


def _first_lines(message: str) -> str:
    lines = [" ".join(ln.split()) for ln in message.splitlines() if ln.strip()]
    return " | ".join(lines[:3])[:300]


def _lines(row: dict[str, Any]) -> list[str]:
    out = [f"{row['test']} — base: {', '.join(row['base'])}; head: {', '.join(row['head'])}"]
    for side in _SIDES:
        said: dict[str, list[str]] = {}
        for i, (outcome, message) in enumerate(zip(row[side], row[f"{side}_messages"], strict=True), 1):
            if outcome in _BAD:
                said.setdefault(_first_lines(message) or outcome, []).append(str(i))
        out += [f"    {side} run{'s' if len(n) > 1 else ''} {', '.join(n)}: {m}" for m, n in said.items()]
    return out


def _uniform(row: dict[str, Any]) -> bool:
    """Whether every run on both trees had one outcome: those go last (a stable sort keeps the report's order),
    so the output cap cuts tests whose outcomes differ last."""
    return len({*row["base"], *row["head"]}) == 1


def _unrunnable(runs: dict[str, list[TestRun]]) -> None:
    """No run started on either tree (pytest is not installed in the project's environment): no evidence."""
    every = [r for side in _SIDES for r in runs[side]]
    if all(r.unstarted for r in every):
        said = next((r.problem for r in every if r.problem), "pytest could not start")
        raise ProbeUnrunnable(f"the probe ran on neither tree: {said}")


class RunProbeTool:
    name: ClassVar[str] = "run_probe"
    description: ClassVar[str] = (
        "Write a new pytest test file (a probe) into throw-away copies of the base and head trees and run it "
        "there, the same number of times on each ([tests] probe_runs), in the sandbox as run_test runs tests: "
        "per test, every run's outcome on base and on head, with each failure's first lines. The trees the "
        "other tools read are untouched. Python (pytest) only for now.")
    Arguments: ClassVar[type[Args]] = RunProbeArgs
    read_only: ClassVar[bool] = False

    def run(self, ctx: ToolContext, args: RunProbeArgs) -> ToolOutput:  # type: ignore[override]
        rel = probe_path(ctx, args.path)
        data = _encoded(ctx, args.content)
        with ContextPool(max_workers=2) as pool:
            on_base = pool.submit(_runs, ctx, "base", rel, data)
            runs = {"head": _runs(ctx, "head", rel, data)}
            runs["base"] = on_base.result()
        _unrunnable(runs)
        rows = sorted(_table(runs, rel), key=_uniform)
        first = runs["head"][0]
        top = (f"run_probe {rel}: {ctx.policy.tests.probe_runs} run(s) on each tree, in copies with the probe "
               f"added; {len(rows)} test(s); isolation {first.proc.isolation}")
        problems = list(dict.fromkeys(r.problem for side in _SIDES for r in runs[side] if r.problem))
        top += "".join(f"; {x}" for x in (first.about, *problems[:2]) if x)
        lines = [ln for row in rows for ln in _lines(row)]
        return ToolOutput(text="\n".join([top, *lines]), isolation=first.proc.isolation, results=rows,
                          advice="probe fewer tests per file")
