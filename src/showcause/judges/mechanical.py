"""The mechanical judge: the probes a careful reviewer would run, with no model and no key.

It runs the differential tests and typecheck and searches for every name the change retired, through
the same tools and ledger a model would use, and turns each artifact into a claim for the same gate.
Deterministic: the same snapshot gives the same calls, claims and verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from showcause.evidence.artifacts import Artifact
from showcause.evidence.ledger import Ledger, ToolCall
from showcause.evidence.retired import RetiredName, Retirement
from showcause.judges.affected import affected_tests
from showcause.judges.base import JudgeAnswer, ReviewRequest
from showcause.review.claims import MAX_CLAIMS, Claim, FinalAnswer
from showcause.tools.diagnostics import choose_checkers

__all__ = ["MechanicalJudge", "Probes", "run_probes"]

_MAX_NAMES = 8        # retired names searched per review
_MAX_LISTED = 3       # artifacts spelled out per claim


def _where(a: Artifact) -> str:
    return f"{a.file}:{a.line}" if a.line else a.file


def _test_claim(call: ToolCall) -> Claim | None:
    arts = [a for a in call.artifacts if a.type == "test_regression"]
    if not arts:
        return None
    ids = [a.detail.rsplit(": ", 1)[0] for a in arts]
    listed = ", ".join(ids[:_MAX_LISTED]) + (f" and {len(ids) - _MAX_LISTED} more" if len(ids) > _MAX_LISTED else "")
    return Claim(claim=f"The change breaks {listed}: failing on head, passing on base (or new and failing).",
                 severity="high", location=arts[0].file, evidence_refs=[call.id, *ids[:_MAX_LISTED]],
                 result="confirmed", verdict="MODIFY", fix="Make the failing tests pass again or justify the new "
                 "behaviour by updating them in the same change.")


def _type_claim(call: ToolCall) -> Claim | None:
    arts = [a for a in call.artifacts if a.type == "new_type_error"]
    if not arts:
        return None
    listed = "; ".join(f"{_where(a)} {a.detail}" for a in arts[:_MAX_LISTED])
    more = f" (and {len(arts) - _MAX_LISTED} more)" if len(arts) > _MAX_LISTED else ""
    return Claim(claim=f"The change introduces {len(arts)} new type error(s): {listed}{more}.", severity="high",
                 location=_where(arts[0]), evidence_refs=[call.id, *(_where(a) for a in arts[:_MAX_LISTED])],
                 result="confirmed", verdict="MODIFY", fix="Fix the new type errors.")


def _dangling_claim(call: ToolCall, name: str) -> Claim | None:
    # The search for one name can show lines using other retired names too: keep this name's, once each.
    seen: dict[tuple[str, int | None], Artifact] = {}
    for a in call.artifacts:
        if a.type == "dangling_reference" and a.detail.startswith(f"`{name}`"):
            seen.setdefault((a.file, a.line), a)
    arts = list(seen.values())
    if not arts:
        return None
    places = ", ".join(_where(a) for a in arts[:_MAX_LISTED])
    more = f" and {len(arts) - _MAX_LISTED} more" if len(arts) > _MAX_LISTED else ""
    return Claim(claim=f"`{name}` is retired by the change but still used at {places}{more}.", severity="high",
                 location=_where(arts[0]), evidence_refs=[call.id, *(_where(a) for a in arts[:_MAX_LISTED])],
                 result="confirmed", verdict="MODIFY",
                 fix=f"Update or remove the remaining uses of `{name}`, or keep the old name.")


@dataclass
class Probes:
    """What the mechanical probes ran: test and typecheck calls, and one search per retired name."""

    tests: list[str]
    why_tests: str
    calls: list[ToolCall]
    names: list[RetiredName]
    searches: list[ToolCall]

    @property
    def all_calls(self) -> list[ToolCall]:
        return [*self.calls, *self.searches]


def run_probes(ledger: Ledger) -> Probes:
    """Differential tests, differential typecheck, and a search for every retired name, in the ledger."""
    ctx = ledger.ctx
    tests, why_tests = affected_tests(ctx)
    # One call per runner: Python tests share one pytest process, JavaScript files one call.
    py = [t for t in tests if t.endswith(".py")]
    js = [t for t in tests if not t.endswith(".py")]
    probes: list[tuple[str, dict[str, Any]]] = [("run_test", {"test": group}) for group in (py, js) if group]
    if choose_checkers(ctx.snapshot.head, ctx.typecheck):
        probes.append(("typecheck", {}))
    calls = ledger.call_many(probes, workers=2)
    retirement = ctx.cache.get("retirement")
    if not isinstance(retirement, Retirement):
        retirement = Retirement(ctx.snapshot, timeout=ctx.policy.search_timeout_s)
        ctx.cache["retirement"] = retirement
    names = sorted(retirement.names.values(), key=lambda r: (-r.head_count, r.name))[:_MAX_NAMES]
    searches = ledger.call_many([("search", {"pattern": rf"(?:^|[^A-Za-z0-9_$]){re.escape(r.name)}"
                                                          r"(?:$|[^A-Za-z0-9_$])"})
                                 for r in names], workers=2)
    return Probes(tests, why_tests, calls, names, searches)


class MechanicalJudge:
    name: ClassVar[str] = "mechanical"
    description: ClassVar[str] = "No model: differential tests, differential typecheck, dangling references."
    needs_model: ClassVar[bool] = False

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        p = run_probes(ledger)
        claims = [c for c in (*(_test_claim(x) for x in p.calls), *(_type_claim(x) for x in p.calls),
                              *(_dangling_claim(s, r.name) for s, r in zip(p.searches, p.names, strict=True)))
                  if c is not None]
        problems = [c for c in p.calls if not c.ok]
        if problems and len(claims) < MAX_CLAIMS:
            ids = [c.id for c in problems]
            claims.append(Claim(claim=f"Some probes could not run ({', '.join(ids)}); their evidence is missing.",
                                severity="low", evidence_refs=ids, result="unable_to_verify", verdict="WARNING"))
        summary = (f"Mechanical probes: {len(p.tests)} test file(s) ({p.why_tests}), "
                   f"{'typecheck' if any(c.tool == 'typecheck' for c in p.calls) else 'no typecheck'}, "
                   f"{len(p.names)} retired name(s) searched. "
                   + (f"{len(claims)} finding(s)." if claims else "Nothing the change introduced was found."))
        return JudgeAnswer(FinalAnswer(summary=summary, claims=claims[:MAX_CLAIMS]))
