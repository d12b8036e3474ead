"""One review: snapshot -> ledger -> judge -> gate (with the probes' floor, then the cap) -> result."""

from __future__ import annotations

import time
import uuid
from collections import Counter

from showcause.core.claims import Claim, most_severe
from showcause.core.errors import SandboxUnavailable, ShowcauseError
from showcause.core.meta import ReviewMeta
from showcause.core.result import ReviewResult
from showcause.evidence.gate import apply_gate
from showcause.evidence.ledger import Ledger
from showcause.evidence.settle import settle
from showcause.judges.base import ReviewRequest
from showcause.judges.contract import require_model
from showcause.judges.registry import judge_mode
from showcause.sandbox.runner import available_isolation
from showcause.tools.base import ToolContext

__all__ = ["UNSANDBOXED_WARNING", "analysis_claim", "run_review"]

UNSANDBOXED_WARNING = ("isolation none (chosen by name): the repository's tests and type checker ran with no "
                       "sandbox that hides the host — they could read your files and environment and use the "
                       "network. Use it only for code you trust.")


def _failed(exc: ShowcauseError, ledger: Ledger, meta: ReviewMeta, started: float, label: str) -> ReviewResult:
    meta.seconds = round(time.monotonic() - started, 3)
    meta.add(exc.meta)
    return ReviewResult("INCONCLUSIVE", "INCONCLUSIVE", f"The review failed: {exc.message}", tool_calls=ledger.calls,
                        meta=meta, error={"code": exc.code, "message": exc.message}, label=label)


def analysis_claim(ctx: ToolContext) -> Claim | None:
    """A WARNING naming what the host-side analysis left out (showcause.core.analysis_budget), if anything: the probes
    found nothing there, which is not the same as nothing being there. It never blocks."""
    left_out = ctx.analysis.summary()
    if left_out is None:
        return None
    text = ("Part of the trees was not analysed, so retired names, dangling references and callers there were "
            f"not checked: {left_out}.")
    return Claim(claim=text if len(text) <= 4000 else text[:3999] + "…", severity="medium",
                 result="unable_to_verify", verdict="WARNING",
                 fix="Check what is listed by hand; for a trusted repository, raise max_analysis_bytes or "
                     "analysis_budget_s with --config.")


def run_review(ctx: ToolContext, mode: str | None = None, request: ReviewRequest | None = None) -> ReviewResult:
    """Review a change in the mode `--mode` names (None: the default for whether a model is configured).

    An unknown mode, and a mode that needs a model without one, are usage errors raised before anything runs.
    """
    request = request or ReviewRequest()
    judge = judge_mode(mode, has_model=bool(request.model))
    spec = judge.spec
    if spec.needs_model:
        require_model(spec, request.model)
    started = time.monotonic()
    ledger = Ledger(ctx, spec.tools)   # the only tools this mode runs (a model is shown only these)
    meta = ReviewMeta(mode=spec.name, model=request.model, review_id=uuid.uuid4().hex[:16])
    try:
        # Before any model call or probe: without a sandbox that hides the host nothing of the change runs,
        # and a review that could not run its probes is never a pass.
        meta.isolation = available_isolation(ctx.policy)
        if meta.isolation == "none":
            meta.warnings.append(UNSANDBOXED_WARNING)
        meta.warnings += list(ctx.env.notes)   # what the project's environment could not do here
        answer = judge.judge(request, ledger)
        refused = next((c for c in ledger.calls if c.error == SandboxUnavailable.code), None)
        if refused is not None:
            raise SandboxUnavailable(refused.output.split(": refused: ", 1)[-1])
    except ShowcauseError as exc:
        return _failed(exc, ledger, meta, started, ctx.snapshot.label)
    if ledger.notes:
        meta.notes = list(dict.fromkeys(ledger.notes))
    # The probes' claims beside the judge's (the floor), then the cap: evidence/settle.py.
    settled = settle(answer.answer.claims, answer.probe_claims, ledger.calls, source=answer.source,
                     already_dropped=answer.answer.claims_dropped)
    gated = settled.claims
    # A model that failed after the probes had blocking evidence gave no verdict of its own.
    model_verdict = ("INCONCLUSIVE" if answer.meta.model_error is not None
                     else most_severe([g.claim.verdict for g in settled.judged]))
    left_out = analysis_claim(ctx)
    if left_out is not None:      # beside the cap: it says what the claims could not rest on
        gated += apply_gate([left_out], ledger.calls, "analysis")
    levels = Counter(c.isolation for c in ledger.calls if c.isolation)
    if levels:
        meta.isolation = max(levels, key=lambda lv: ("bwrap", "unshare", "none").index(lv))   # the weakest
    meta.model, meta.usage, meta.cost_usd = answer.model or request.model, answer.usage, answer.cost_usd
    meta.seconds = round(time.monotonic() - started, 3)
    meta.prompts, meta.claims_dropped = answer.prompts, settled.dropped
    meta.add(answer.meta)
    return ReviewResult(
        verdict=most_severe([g.verdict for g in gated]),
        model_verdict=model_verdict,
        summary=answer.answer.summary, claims=gated, tool_calls=ledger.calls, meta=meta,
        label=ctx.snapshot.label)
