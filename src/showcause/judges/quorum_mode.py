"""`--mode quorum`: the quorum configuration's sources each run evidence_gate over the same probes' calls.

The probes run once; every member sees their calls. The members of a tier run at the same time, each
on its own fork of the ledger (the probes' calls, then its own, numbered as if it were alone); when the
tier is done their calls join the review's ledger in the configuration's order of sources, renumbered,
and so are the ids their claims cite: ids and results never depend on which member was faster. Each
member's claims are gated on their own and merged by artifact identity (judges/agreement.py). A
validated finding blocks whoever made it; one without validation is reported (as the WARNING the
review's gate makes of it) only when the members that made it weigh the required weight.

Lazy escalation: tiers run lowest first; the next tier runs unless every member that answered so far
agrees (the same verdict and the same findings) on at least one validated finding. Agreeing that nothing
was found does not stop it: that is where a stronger model may still find something.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from showcause.core.claims import FinalAnswer, most_severe
from showcause.core.errors import ModelRequired, ProviderError, ShowcauseError
from showcause.core.meta import JudgeMeta
from showcause.core.threads import ContextPool
from showcause.evidence.gate import apply_gate
from showcause.evidence.ledger import Ledger
from showcause.judges.agreement import Finding, MemberClaims, effective_votes, findings
from showcause.judges.base import JudgeAnswer, ReviewRequest
from showcause.judges.budget import Budget
from showcause.judges.contract import ModeSpec, model_budget
from showcause.judges.loop import run_tool_loop
from showcause.judges.mechanical import MODEL_FAILURES, Probes, probe_claims, probes_after_model_failure, run_probes
from showcause.judges.prompting import change_text, load_prompt
from showcause.providers.base import Message
from showcause.providers.registry import wrap_provider
from showcause.tools.registry import REVIEW_TOOLS

if TYPE_CHECKING:   # loaded when a quorum review runs: a mechanical review never loads the peers' clients
    from showcause.quorum.config import Source
    from showcause.quorum.peers import Peers

__all__ = ["QuorumJudge"]

_PROMPT = "evidence_gate"


@dataclass
class _Member:
    source: Source
    status: str = "ok"                    # ok | error | unavailable (the quorum's statuses)
    error: str | None = None
    answer: FinalAnswer | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    model: str | None = None

    @property
    def tokens(self) -> int:
        return int(self.usage.get("prompt_tokens", 0) or 0) + int(self.usage.get("completion_tokens", 0) or 0)

    def report(self, verdict: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.source.name, "model": self.model or self.source.model,
                               "tier": self.source.tier, "weight": self.source.weight, "status": self.status,
                               "verdict": verdict, "tokens": self.tokens, "cost_usd": self.cost_usd}
        if self.error is not None:
            out["error"] = self.error
        return out


def _run_member(peers: Peers, source: Source, ledger: Ledger, messages: list[Message], budget: Budget) -> _Member:
    if not peers.available(source):
        return _Member(source, "unavailable", "CONFIG_ERROR")
    try:   # wrapped as `get_provider` would be: a bench meters (and paces) every member's calls
        provider = wrap_provider(peers.provider(source))
    except ShowcauseError as exc:
        return _Member(source, "unavailable", exc.code)
    try:
        result = run_tool_loop(provider, ledger, list(messages), budget)
    except MODEL_FAILURES as exc:   # one member failing is that member's outcome, not the review's
        return _Member(source, "error", exc.code)
    finally:
        close = getattr(provider, "close", None)
        if callable(close):
            close()
    return _Member(source, answer=result.answer, usage=result.usage, cost_usd=result.cost_usd, model=result.model)


def _run_tier(peers: Peers, sources: list[Source], ledger: Ledger, messages: list[Message],
              budget: Budget) -> list[_Member]:
    """The sources of one tier at the same time, each on its own fork; their calls and the ids their claims
    cite join `ledger` in the order of `sources` (the scopes and progress of the caller's context carry over)."""
    forks = [ledger.fork() for _ in sources]
    with ContextPool(max_workers=max(1, len(sources))) as pool:
        futures = [pool.submit(_run_member, peers, s, f, messages, budget) for s, f in zip(sources, forks, strict=True)]
        members = [f.result() for f in futures]
    for member, fork in zip(members, forks, strict=True):
        renumbering = ledger.adopt(fork)
        if member.answer is not None:
            member.answer = renumbering.answer(member.answer)
    return members


def _gated(members: list[_Member], ledger: Ledger) -> list[MemberClaims]:
    return [MemberClaims(m.source.name, m.source.weight, apply_gate(m.answer.claims, ledger.calls))
            for m in members if m.answer is not None]


def _agreed_on_a_block(members: list[_Member], ledger: Ledger, required: int) -> bool:
    """Whether every member so far answered and all agree (one vote) on at least one validated finding."""
    gated = _gated(members, ledger)
    found = findings(gated, required)
    return (bool(gated) and all(m.status != "error" for m in members) and effective_votes(gated, found) == 1
            and any(f.validated for f in found))


def _summed(members: list[_Member]) -> tuple[dict[str, int], float | None]:
    usage = {k: sum(int(m.usage.get(k, 0) or 0) for m in members) for k in ("prompt_tokens", "completion_tokens")}
    answered = [m for m in members if m.status == "ok"]
    costs = [m.cost_usd for m in answered]
    return usage, (sum(c for c in costs if c is not None) if answered and None not in costs else None)


def _cost(members: list[_Member]) -> dict[str, Any]:
    """What the review cost against one member: total tokens over the mean tokens of a member that answered."""
    answered = [m for m in members if m.status == "ok"]
    total = sum(m.tokens for m in members)
    single = total / len(answered) if answered else 0.0
    usage, cost = _summed(members)
    return {"tokens": total, "single_member_tokens": round(single, 1),
            "ratio": round(total / single, 2) if single else None, "cost_usd": cost,
            "members_asked": sum(m.status != "unavailable" for m in members), "prompt_tokens": usage["prompt_tokens"]}


def _finding_report(f: Finding, reported: bool) -> dict[str, Any]:
    lead = f.lead
    return {"claim": lead.claim.claim[:300], "members": f.members, "validated": f.validated,
            "agreeing_weight": f.agreeing_weight, "certainty": f.certainty, "reported": reported}


class QuorumJudge:
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="quorum", tools=REVIEW_TOOLS, model_option="--quorum",
        description="The sources of a quorum configuration (--quorum FILE, or [quorum] in --config) each run "
                    "evidence_gate over the same probes' calls, a tier's members at once, lowest tier first; a "
                    "validated finding blocks on its "
                    "own, other findings are merged by artifact identity and reported when their members weigh "
                    "the required weight.")

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        from showcause.quorum.peers import Peers

        peers = request.quorum
        if not isinstance(peers, Peers):
            raise ModelRequired("mode 'quorum' needs a quorum configuration: `quorum` FILE or `config` FILE "
                                "with a [quorum] table")
        config = peers.config
        probes = run_probes(ledger)
        system, digest = load_prompt(_PROMPT)
        messages = [Message("system", system),
                    Message("user", change_text(ledger.ctx.snapshot, request, probes.all_calls))]
        budget = model_budget(self.spec, ledger.ctx.policy)
        members: list[_Member] = []
        for tier in config.tiers:
            members += _run_tier(peers, [s for s in config.sources if s.tier == tier], ledger, messages, budget)
            if _agreed_on_a_block(members, ledger, config.thresholds[tier]):
                break
        return self._answer(members, probes, config.thresholds, ledger, digest)

    def _answer(self, members: list[_Member], probes: Probes, thresholds: Any, ledger: Ledger,
                digest: str) -> JudgeAnswer:
        tiers = sorted({m.source.tier for m in members})
        required = int(thresholds[tiers[-1]])
        gated = _gated(members, ledger)
        found = findings(gated, required)
        keep = [f for f in found if f.validated or f.agreeing_weight >= required]
        verdicts = {g.name: most_severe([c.verdict for c in g.gated]) for g in gated}
        usage, cost = _summed(members)
        votes, cost_report = effective_votes(gated, found), _cost(members)
        ratio = "" if cost_report["ratio"] is None else f", {cost_report['ratio']:g}x one member's tokens"
        summary = (f"Quorum of {len(gated)} answering member(s) over tier(s) {', '.join(map(str, tiers))} "
                   f"({votes} independent vote(s){ratio}): {sum(f.validated for f in keep)} validated finding(s), "
                   f"{sum(not f.validated for f in keep)} finding(s) reported by agreement.")
        extras = {"quorum": {
            "tiers": tiers, "required_weight": required, "effective_votes": votes,
            "members": [m.report(verdicts.get(m.source.name)) for m in members],
            "findings": [_finding_report(f, f in keep) for f in found], "cost": cost_report}}
        if not gated:   # as evidence_gate whose model failed: the probes' floor, else INCONCLUSIVE
            errors = ", ".join(f"{m.source.name}: {m.error}" for m in members)
            exc = ProviderError(f"no quorum member answered ({errors})")
            exc.meta.extras.update(extras)   # a failed review still says which member failed how
            failed = probes_after_model_failure(exc, probes)
            failed.meta.extras.update(extras)
            return failed
        unread = sum(m.answer.claims_dropped for m in members if m.answer is not None)   # beyond the parse cap
        answer = JudgeAnswer(FinalAnswer(summary=summary, claims=[f.lead.claim for f in keep], claims_dropped=unread),
                             model="quorum:" + ",".join(m.source.name for m in members if m.status == "ok"),
                             usage=usage, cost_usd=cost, prompts={_PROMPT: digest}, meta=JudgeMeta(extras=extras))
        answer.probe_claims = probe_claims(probes)
        return answer
