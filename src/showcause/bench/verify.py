"""`showcause cases verify`: every label checked mechanically (docs/cases.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from showcause.analysis.retired import Retirement
from showcause.bench.cases import Case, load_case
from showcause.core.errors import ShowcauseError
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.prepare import prepare_case
from showcause.service.review import run_review
from showcause.tools.base import ToolContext
from showcause.tools.run_test import allowlist
from showcause.tools.testexec import run_tests, split_test_id

__all__ = ["Verdict", "verify_case"]

_BAD = ("failed", "error", "timeout")


@dataclass(frozen=True)
class Verdict:
    case: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.case:<40} {self.detail}"


def _outcome(outcomes: list[tuple[str, str]], test: str) -> str | None:
    return next((o for t, o in outcomes if t == test), None)


def _check_tests(case: Case, snap_head: Path, snap_base: Path, ctx: ToolContext) -> list[str]:
    problems = []
    for ev in case.doc.truth.evidence:
        if "::" not in ev:
            continue
        split_test_id(ev)
        head = run_tests(snap_head, ev, ctx.policy, env=ctx.env)
        base = run_tests(snap_base, ev, ctx.policy, env=ctx.env)
        h = _outcome([(o.test, o.outcome) for o in head.outcomes], ev)
        b = _outcome([(o.test, o.outcome) for o in base.outcomes], ev)
        if h not in _BAD:
            problems.append(f"{ev} is {h or 'absent'} on head (must fail)")
        if b != "passed":
            problems.append(f"{ev} is {b or 'absent'} on base (must pass)")
    if not any("::" in ev for ev in case.doc.truth.evidence):
        problems.append("a test defect names its failing test as path::name in truth.evidence")
    return problems


def _locations(case: Case) -> list[tuple[str, int]]:
    out = []
    for ev in case.doc.truth.evidence:
        file, _, line = ev.rpartition(":")
        if "::" not in ev and line.isdigit():
            out.append((file, int(line)))
    return out


def verify_case(path: Path) -> Verdict:
    """Check one case; never raises for a bad case (the problem is the verdict)."""
    path = Path(path).resolve()
    name = path.name
    try:
        case = load_case(path)
        prepare_case(path)   # a real-world case's releases and environment, fetched once into the cache
        with open_snapshot(case=Path(path)) as snap:
            ctx = tool_context(snap)
            problems: list[str] = []
            for t in case.doc.checks.tests:
                if not (snap.head / t).is_file():
                    problems.append(f"checks.tests names {t}, absent on head")
            kind = case.doc.truth.kind
            if kind == "test":
                problems += _check_tests(case, snap.head, snap.base, ctx)
            ledger = Ledger(ctx)
            if kind == "typecheck":
                call = ledger.call("typecheck", {})
                new = {(a.file, a.line) for a in call.artifacts}
                for loc in _locations(case) or [("", 0)]:
                    if loc not in new:
                        problems.append(f"{loc[0]}:{loc[1]} is not a new type error on head ({call.output[:200]})")
            if kind == "reference":
                retirement = Retirement(snap)
                for file, line in _locations(case) or [("", 0)]:
                    if not retirement.uses(file, line):
                        problems.append(f"{file}:{line} uses no name the patch retired "
                                        f"(retired: {', '.join(sorted(retirement.names)) or 'none'})")
            if kind in ("untestable", "none"):
                # Every probe of the mechanical judge, over every allowlisted test: no artifact may appear.
                result = run_review(ctx, "mechanical")
                calls = result.tool_calls
                tests = allowlist(ctx)
                if not any(c.tool == "run_test" for c in calls) and tests:
                    problems.append("the allowlisted tests did not run")
                found = [f"{c.id} {a.type} {a.file}:{a.line or ''} {a.detail}" for c in calls for a in c.artifacts]
                problems += [f"must be green on head, with no new type error or dangling reference; found {f}"
                             for f in found]
                problems += [f"{c.tool} {c.args} did not run: {c.output[:160]}" for c in calls if not c.ok]
            if problems:
                return Verdict(name, False, "; ".join(problems))
            return Verdict(name, True, f"{case.doc.truth.status}/{kind}")
    except ShowcauseError as exc:
        return Verdict(name, False, exc.message)
