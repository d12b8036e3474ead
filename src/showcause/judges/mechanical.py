"""The mechanical judge: the probes a careful reviewer would run, with no model and no key.

It runs the differential tests and typecheck and searches for every name the change retired, through
the same tools and ledger a model would use, and turns each artifact into a claim for the same gate.
Deterministic: the same snapshot gives the same calls, claims and verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from showcause.analysis.arity import ArityMismatch, arity_changes
from showcause.analysis.depfiles import dependency_edits
from showcause.analysis.retired import RetiredName
from showcause.core.analysis_budget import AnalysisBudget
from showcause.core.artifacts import Artifact
from showcause.core.claims import Claim, FinalAnswer
from showcause.core.errors import (
    BudgetExceeded,
    ProbeUnrunnable,
    ProviderError,
    ReviewTimeout,
    SandboxUnavailable,
    ShowcauseError,
)
from showcause.core.meta import JudgeMeta
from showcause.core.records import ToolCall
from showcause.core.threads import ContextPool
from showcause.evidence.ledger import UNRUNNABLE, Ledger
from showcause.judges.base import JudgeAnswer, ReviewRequest
from showcause.judges.contract import ModeSpec
from showcause.snapshot import Snapshot
from showcause.tools.diagnostics import choose_checkers
from showcause.tools.pyright_config import settings_changed
from showcause.tools.run_test import MAX_TARGETS
from showcause.tools.runners.jsproject import declared_test_script
from showcause.tools.selection import affected_tests
from showcause.tools.typesetup import NO_TYPE_SETUP, checkers_for_project

__all__ = ["NO_TESTS", "MechanicalJudge", "Probes", "probe_claims", "run_probes"]

NO_TESTS = "no tests found: only types and references were checked"

_MAX_NAMES = 8        # retired names searched per review
_MAX_LISTED = 3       # artifacts spelled out per claim
_CITED = 19           # tests one claim cites (with the call's id, the 20 references a claim may hold)
_FILES_TEXT = 3000    # characters of file names one claim names (a claim's text holds 4000)


def _where(a: Artifact) -> str:
    return f"{a.file}:{a.line}" if a.line else a.file


def _test_claims(call: ToolCall) -> list[Claim]:
    """The call's test regressions, every one cited (the gate attaches the artifacts a claim cites): up to
    _CITED of them by id in one claim (a claim holds 20 references, the call's id among them); more by the
    call's id alone, which offers all its artifacts, in claims that name their test files (the gate relates an
    artifact to a claim that names its file), as many files as a claim's text holds."""
    arts = [a for a in call.artifacts if a.type == "test_regression"]
    if not arts:
        return []
    if len(arts) <= _CITED:
        ids = [a.subject for a in arts]
        more = len(ids) - _MAX_LISTED
        listed = ", ".join(ids[:_MAX_LISTED]) + (f" and {more} more" if more > 0 else "")
        return [_broken(f"The change breaks {listed}", arts[0].file, [call.id, *ids])]
    per_file: dict[str, int] = {}
    for a in arts:
        per_file[a.file] = per_file.get(a.file, 0) + 1
    claims, part = [], list[str]()
    for file in [*per_file, ""]:   # "" ends the last part
        if part and (not file or sum(len(f) + 8 for f in [*part, file]) > _FILES_TEXT):
            named = ", ".join(f"{f} ({per_file[f]})" for f in part)
            total = sum(per_file[f] for f in part)
            claims.append(_broken(f"The change breaks {total} tests, in {named} ({call.id}'s results name each)",
                                  part[0], [call.id]))
            part = []
        if file:
            part.append(file)
    return claims


def _broken(said: str, location: str, refs: list[str]) -> Claim:
    return Claim(claim=f"{said}: failing on head, passing on base (or new and failing).", severity="high",
                 location=location, evidence_refs=refs, result="confirmed", verdict="MODIFY",
                 fix="Make the failing tests pass again or justify the new behaviour by updating them in the same "
                     "change.")


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
        if a.type == "dangling_reference" and a.subject == name:
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
    """What the mechanical probes ran: test and typecheck calls, one search per retired name, and one
    reference lookup per function whose unchanged callers no longer fit its new parameters."""

    tests: list[str]
    why_tests: str
    calls: list[ToolCall]
    names: list[RetiredName]
    searches: list[ToolCall]
    arity: list[tuple[ToolCall, list[ArityMismatch]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def all_calls(self) -> list[ToolCall]:
        return [*self.calls, *self.searches, *(call for call, _ in self.arity)]


def _arity(snapshot: Snapshot, notes: list[str], budget: AnalysisBudget, worker_min_files: int,
           ) -> list[ArityMismatch]:
    try:
        with budget.measure():
            return arity_changes(snapshot, budget, worker_min_files=worker_min_files)
    except Exception as exc:  # an advisory probe must never cost the review its blocking evidence
        notes.append(f"the arity probe failed ({type(exc).__name__}: {exc})")
        return []


def _arity_claim(call: ToolCall, found: list[ArityMismatch]) -> Claim:
    first = found[0]
    sites = "; ".join(f"{m.file}:{m.line} `{m.call}` {m.reason}" for m in found[:_MAX_LISTED])
    more = f" (and {len(found) - _MAX_LISTED} more)" if len(found) > _MAX_LISTED else ""
    return Claim(claim=f"`{first.function}` now takes {first.new} (was {first.old}), but unchanged callers no longer "
                       f"fit: {sites}{more}.", severity="medium", location=f"{first.file}:{first.line}",
                 evidence_refs=[call.id, *(f"{m.file}:{m.line}" for m in found[:_MAX_LISTED])], result="confirmed",
                 verdict="WARNING", fix=f"Update the callers of `{first.function}` or keep the old parameters.")


def _settings_claim(call: ToolCall, snapshot: Snapshot, typecheck: str) -> Claim | None:
    """A change that edits pyright's settings can exclude its own errors from the check: a warning, since
    nothing mechanical shows whether it did. ``typecheck``: the checker the case or config asks for."""
    if call.tool != "typecheck" or "pyright" not in choose_checkers(snapshot.head, typecheck):
        return None
    edited = settings_changed(snapshot.base, snapshot.head)
    if edited is None:
        return None
    return Claim(claim=f"The change edits pyright's settings ({edited}); head was type-checked under them, so "
                       "errors in what they exclude or relax are not reported.", severity="low",
                 location=edited.split(" ", 1)[0], evidence_refs=[call.id], result="unable_to_verify",
                 verdict="WARNING", fix="Keep type-checker settings changes in their own change, or show that "
                 "the files they exclude have no new errors.")


def probe_claims(probes: Probes) -> list[Claim]:
    """The blocking claims the probes' artifacts make on their own: a test regression per test call, new type
    errors per typecheck call, a dangling reference per retired name. The mechanical judge answers with them;
    a model mode passes them to the review as the floor under its model's answer (evidence/settle.py)."""
    found = (*(c for x in probes.calls for c in _test_claims(x)), *(_type_claim(x) for x in probes.calls),
             *(_dangling_claim(s, r.name) for s, r in zip(probes.searches, probes.names, strict=True)))
    return [c for c in found if c is not None]


def _dependency_claim(snapshot: Snapshot, calls: list[ToolCall]) -> Claim | None:
    """Base and head ran in one environment: a change to the dependencies is a WARNING, never verified."""
    edits = dependency_edits(snapshot)
    if not edits:
        return None
    listed = ", ".join(edits[:_MAX_LISTED]) + (f" and {len(edits) - _MAX_LISTED} more" if len(edits) > _MAX_LISTED
                                               else "")
    return Claim(claim=f"The change edits dependencies ({listed}); tests and type checks ran in the same environment "
                       "for base and head, so head's new or changed dependencies are not installed and what uses "
                       "them is not verified.", severity="low", location=edits[0].split(" (", 1)[0],
                 evidence_refs=[c.id for c in calls if c.tool in ("run_test", "typecheck")],
                 result="unable_to_verify", verdict="WARNING",
                 fix="Install head's dependencies into an environment and review again with --python PATH.")


def _flaky_claim(call: ToolCall) -> Claim | None:
    """Tests whose outcome differed between runs of one tree: never evidence against the change, but said."""
    rows = [r for r in call.results or [] if r.get("flaky") and isinstance(r.get("runs"), dict)]
    if call.tool != "run_test" or not rows:
        return None
    listed = "; ".join(f"{r['test']} (head: {', '.join(r['runs']['head'])}; base: {', '.join(r['runs']['base'])})"
                       for r in rows[:_MAX_LISTED])
    more = f" (and {len(rows) - _MAX_LISTED} more)" if len(rows) > _MAX_LISTED else ""
    return Claim(claim=f"Flaky tests, their outcome differing between runs of the same tree: {listed}{more}. "
                       "They do not show that the change broke anything, nor that it did not.", severity="low",
                 location=str(rows[0]["test"]).split("::", 1)[0], evidence_refs=[call.id, str(rows[0]["test"])],
                 result="unable_to_verify", verdict="WARNING",
                 fix="Make the tests deterministic, or check by hand what they test.")


def _unrunnable(calls: list[ToolCall]) -> None:
    """A probe that could not run to any outcome leaves the review without its evidence: INCONCLUSIVE, never a
    pass (a refused sandbox is left to the review, which says so with its own code)."""
    if any(c.error == SandboxUnavailable.code for c in calls):
        return
    failed = next((c for c in calls if c.error == ProbeUnrunnable.code), None)
    if failed is not None:
        raise ProbeUnrunnable(failed.output.split(UNRUNNABLE, 1)[-1])
    broken = next((c for c in calls if not c.ok), None)
    if broken is not None:   # refused or failed: a probe of the judge's own making without its evidence
        raise ProbeUnrunnable(f"the probe {broken.output.split(chr(10), 1)[0]}; no verdict without its evidence")


# What can end a model's answer after the probes ran; a leak of the blindness or a refused sandbox is not one.
MODEL_FAILURES = (ProviderError, BudgetExceeded, ReviewTimeout)


def probes_after_model_failure(exc: ShowcauseError, probes: Probes) -> JudgeAnswer:
    """A model mode whose model failed once the probes had run: when the probes hold blocking evidence of
    their own, the review rests on it (never below what they validated) and says that the model failed;
    otherwise the failure stands (INCONCLUSIVE), since nothing else was judged."""
    claims = probe_claims(probes)
    if not claims:
        raise exc
    summary = (f"The model's answer failed ({exc.code}: {exc.message}); the verdict rests on what the mechanical "
               "probes validated on their own.")
    return JudgeAnswer(FinalAnswer(summary=summary), probe_claims=claims,
                       meta=JudgeMeta(model_error={"code": exc.code, "message": exc.message}))


def run_probes(ledger: Ledger) -> Probes:
    """Differential tests, differential typecheck, and a search for every retired name, in the ledger.
    Raises ProbeUnrunnable when the tests or the type checker could not run to any outcome."""
    ctx = ledger.ctx
    tests, why_tests = affected_tests(ctx)
    if not tests:
        declared = declared_test_script(ctx.snapshot.head)
        if declared and not ctx.tests:   # the project has tests and says how to run them: none found is no pass
            raise ProbeUnrunnable(f"{declared}, but no test file it runs was found: name them in the config's "
                                  "[tests] discover globs, or run the review where they are")
        ledger.notes.append(NO_TESTS)
    # One call per runner (Python tests share one pytest process, JavaScript files one call), in as many calls
    # of at most MAX_TARGETS files as it takes: every affected test runs.
    py = [t for t in tests if t.endswith(".py")]
    js = [t for t in tests if not t.endswith(".py")]
    probes: list[tuple[str, dict[str, Any]]] = [("run_test", {"test": group[i:i + MAX_TARGETS]})
                                                for group in (py, js) for i in range(0, len(group), MAX_TARGETS)]
    checkers, unset = checkers_for_project(ctx.snapshot.head, ctx.typecheck,
                                           without_setup=not ctx.policy.process.typecheck_needs_setup,
                                           base=ctx.snapshot.base)
    if checkers:
        probes.append(("typecheck", {}))
    if unset:
        ledger.notes.append(NO_TYPE_SETUP)
    # Finding the retired names is Python work (both trees' symbols): it overlaps the test and
    # typecheck processes instead of waiting for them.
    notes: list[str] = []
    with ContextPool(max_workers=1) as side:
        # `.names` is lazy: asked for here, so it is worked out while the tests run, not after them.
        retiring = side.submit(lambda: ledger.retirement().names)
        fitting = side.submit(_arity, ctx.snapshot, notes, ctx.analysis, ctx.policy.symbols.symbol_worker_min_files)
        calls = ledger.call_many(probes, workers=2)
        retired = retiring.result()
        mismatches = fitting.result()
    _unrunnable(calls)
    names = sorted(retired.values(), key=lambda r: (-r.head_count, r.name))[:_MAX_NAMES]
    by_function: dict[str, list[ArityMismatch]] = {}
    for m in mismatches:
        by_function.setdefault(m.function, []).append(m)
    functions = list(by_function)[:_MAX_NAMES]
    lookups = ledger.call_many([*(("search", {"pattern": rf"(?:^|[^A-Za-z0-9_$]){re.escape(r.name)}"
                                                         r"(?:$|[^A-Za-z0-9_$])"}) for r in names),
                                *(("find_symbol", {"name": f.rsplit(".", 1)[-1], "kind": "reference"})
                                  for f in functions)], workers=2)
    searches, refs = lookups[:len(names)], lookups[len(names):]
    arity = [(call, by_function[f]) for call, f in zip(refs, functions, strict=True)]
    return Probes(tests, why_tests, calls, names, searches, arity, notes)


class MechanicalJudge:
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="mechanical", needs_model=False, passes=0, budget=None, default_for="without_model",
        tools=("search", "find_symbol", "run_test", "typecheck"),   # what `run_probes` calls
        description="No model: differential tests, differential typecheck and a search for every retired name "
                    "(each finding a blocking claim), callers that no longer fit a changed signature (a WARNING).")

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        p = run_probes(ledger)
        claims = [*probe_claims(p), *(_arity_claim(call, found) for call, found in p.arity),
                  *(c for c in (*(_flaky_claim(x) for x in p.calls),
                                *(_settings_claim(x, ledger.ctx.snapshot, ledger.ctx.typecheck) for x in p.calls),
                                _dependency_claim(ledger.ctx.snapshot, p.calls)) if c is not None)]
        tested = f"{len(p.tests)} test file(s) ({p.why_tests})" if p.tests else NO_TESTS
        summary = (f"Mechanical probes: {tested}, "
                   f"{'typecheck' if any(c.tool == 'typecheck' for c in p.calls) else 'no typecheck'}, "
                   f"{len(p.names)} retired name(s) searched"
                   + (f", {len(p.arity)} function(s) with callers that no longer fit" if p.arity else "")
                   + "".join(f"; {n}" for n in p.notes) + ". "
                   + (f"{len(claims)} finding(s)." if claims else "Nothing the change introduced was found."))
        # All of them: the review keeps the most severe MAX_CLAIMS once gated, and reports the rest.
        return JudgeAnswer(FinalAnswer(summary=summary, claims=claims), source="probe")
