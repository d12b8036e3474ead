"""Decision reviews: `blind_first` (a position first, then the proposal, in one conversation) and
`proposal_first` (one pass with the proposal visible, the comparison arm), and what every decision mode shares
(the decision benchmark's arms, decision/arms.py, are built from the same pieces).

blind_first: the blindness check runs before any model call and refuses a leak (BLINDNESS_LEAK). Phase 1
sees the objective, constraints, context, environment, evidence, decision type and risk level — the
proposal is not in its messages at all — and answers with a position. Phase 2 appends that position and
the proposal to the same conversation and asks for the verdict. Only the verdict is returned: the
position stays in the conversation, which is discarded.

Budget (tokens per review, hard): phase 1 may write only as much as leaves phase 2 room to resend the
conversation, read the proposal and answer; a review whose two phases cannot fit is refused before any
call (BUDGET_EXCEEDED). If phase 2 still cannot fit after phase 1 (the provider reported more tokens than
estimated, or phase 1 needed its repair turn), the result is INSUFFICIENT_EVIDENCE with confidence 0 and
`meta.budget_exhausted`, and it exits 3: the proposal was never judged. Answers are parsed tolerantly with
one repair turn; an answer cut at the token limit is OUTPUT_TRUNCATED; tool calls are never run.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, TypeVar

from showcause.core.decision import (
    DecisionInput,
    DecisionVerdict,
    FalsificationProbe,
    Position,
    parse_position,
    parse_verdict,
)
from showcause.core.decision_result import DecisionResult
from showcause.core.errors import BudgetExceeded, MalformedAnswer, OutputTruncatedError, ShowcauseError
from showcause.core.meta import DecisionMeta
from showcause.judges.blindness import Thresholds, check_blindness
from showcause.judges.budget import MIN_COMPLETION, Accountant, Budget, estimate_prompt
from showcause.judges.contract import Mode, ModeSpec, require_model
from showcause.judges.prompting import load_prompt, task_sections
from showcause.providers.base import Message, ModelTurn
from showcause.providers.registry import get_provider

__all__ = ["OUT_OF_BUDGET", "VERDICT_RESERVE", "DecisionBlindFirst", "DecisionMode", "DecisionOptions",
           "DecisionProposalFirst", "Phases", "ask_json", "blind_phase", "final_verdict", "one_pass", "problem_text",
           "proposal_text", "review_with"]
VERDICT_RESERVE = 1_024      # completion tokens phase 1 must leave for the verdict
_T = TypeVar("_T")
Phases = Callable[[DecisionInput, Accountant, DecisionMeta], DecisionVerdict]


@dataclass(frozen=True)
class DecisionOptions:
    model: str
    base_url: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    budget: Budget = field(default_factory=Budget)


def _usable(turn: ModelTurn, parse: Callable[[str], _T]) -> _T:
    if turn.finish_reason == "length":
        raise OutputTruncatedError("the model's answer was cut at the completion-token limit")
    if turn.tool_calls:
        raise MalformedAnswer("this review has no tools; reply with only the JSON object asked for")
    return parse(turn.content)


def ask_json(session: Accountant, messages: list[Message], parse: Callable[[str], _T], cap: int | None = None) -> _T:
    """One answer, parsed; one repair turn for an unusable answer, then MALFORMED_RESPONSE."""
    turn = session.ask(messages, cap=cap)
    try:
        return _usable(turn, parse)
    except MalformedAnswer as first:
        retry = [*messages, Message("assistant", turn.content or "(empty)"),
                 Message("user", f"Your answer could not be used: {first.message}. Reply with only the JSON "
                                 "object described above, nothing else.")]
        return _usable(session.ask(retry, cap=cap), parse)


def problem_text(d: DecisionInput) -> str:
    """The task sections (everything the blind phase may see)."""
    parts = task_sections("Objective", d.objective, d.constraints, d.context)
    if d.environment.strip():
        parts.append(f"## Environment\n{d.environment}")
    if d.evidence:
        parts.append("## Evidence\n" + "\n".join(f"{i}. {e}" for i, e in enumerate(d.evidence, 1)))
    parts.append(f"## Decision type: {d.decision_type}; risk level: {d.risk_level}")
    return "\n\n".join(parts)


def proposal_text(d: DecisionInput) -> str:
    # A closing tag inside the text would end the block early and let the rest pass for instructions.
    body = d.proposed_solution.replace("</proposed_solution>", "</proposed_solution_>")
    return f"<proposed_solution>\n{body}\n</proposed_solution>"


OUT_OF_BUDGET = DecisionVerdict(
    verdict="INSUFFICIENT_EVIDENCE", confidence=0.0,
    recommendation="The proposal was not reviewed: the token budget ran out after the blind phase. Re-run the "
                   "review with a larger token budget.",
    falsification_probe=FalsificationProbe(description="Re-run the review with a larger token budget.",
                                           expected_signal="A verdict from the reveal phase."))


def blind_phase(d: DecisionInput, session: Accountant, meta: DecisionMeta, after: list[Message],
                resent: bool) -> tuple[list[Message], Position]:
    """Phase 1: the problem only, never the proposal. ``after`` is what the next phase adds; ``resent``
    whether it resends phase 1 (same conversation) or starts afresh. Phase 1 may write only what leaves the
    next phase room; a review whose phases cannot fit is refused before any call."""
    system, blind = load_prompt("decision_system"), load_prompt("decision_blind")
    meta.name_prompts({"decision_system": system[1], "decision_blind": blind[1]})
    phase1 = [Message("system", system[0]), Message("user", f"{problem_text(d)}\n\n{blind[0]}")]
    p1, nxt = estimate_prompt(phase1), estimate_prompt(after)
    cap = (session.tokens_left() - (2 if resent else 1) * p1 - nxt - VERDICT_RESERVE) // 2
    if cap < MIN_COMPLETION:
        need = (2 if resent else 1) * p1 + 2 * MIN_COMPLETION + nxt + VERDICT_RESERVE
        raise BudgetExceeded(f"both phases need about {need} tokens; the budget is {session.budget.tokens}")
    position = ask_json(session, phase1, parse_position, cap=cap)
    meta.phases = 1
    return phase1, position


def _blind_first(d: DecisionInput, session: Accountant, meta: DecisionMeta) -> DecisionVerdict:
    reveal, fmt = load_prompt("decision_reveal"), load_prompt("decision_verdict")
    meta.prompts = {"decision_reveal": reveal[1], "decision_verdict": fmt[1]}
    shown = Message("user", f"{reveal[0]}\n\n{proposal_text(d)}\n\n{fmt[0]}")
    # Phase 2 resends phase 1 and its answer, then adds the proposal.
    phase1, position = blind_phase(d, session, meta, [shown], resent=True)
    phase2 = [*phase1, Message("assistant", position.model_dump_json()), shown]
    return final_verdict(session, phase2, meta)


def final_verdict(session: Accountant, messages: list[Message], meta: DecisionMeta) -> DecisionVerdict:
    """The second call of a two-call mode: the verdict, or OUT_OF_BUDGET (marked in `meta`) when the budget
    left cannot hold `messages` and a minimal answer."""
    if estimate_prompt(messages) + MIN_COMPLETION > session.tokens_left():
        meta.budget_exhausted = True
        return OUT_OF_BUDGET
    verdict = ask_json(session, messages, parse_verdict)
    meta.phases = 2
    return verdict


def one_pass(prompt: str) -> Phases:
    """A mode of one call with the proposal visible, asked in the words of prompts/``prompt``.txt."""
    def phases(d: DecisionInput, session: Accountant, meta: DecisionMeta) -> DecisionVerdict:
        system, critique, fmt = (load_prompt(n) for n in ("decision_system", prompt, "decision_verdict"))
        meta.prompts = {"decision_system": system[1], prompt: critique[1], "decision_verdict": fmt[1]}
        messages = [Message("system", system[0]),
                    Message("user", f"{problem_text(d)}\n\n{critique[0]}\n\n{proposal_text(d)}\n\n{fmt[0]}")]
        verdict = ask_json(session, messages, parse_verdict)
        meta.phases = 1
        return verdict
    return phases


class DecisionMode(Mode, Protocol):
    """A decision mode: reviews a decision document; every failure is an INCONCLUSIVE result with its code."""

    def review(self, decision: DecisionInput, options: DecisionOptions) -> DecisionResult: ...


class DecisionBlindFirst:
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="blind_first", default_for="any",
        description="A position first, knowing only the problem; then the proposal, in the same conversation, "
                    "and the verdict. Refuses a proposal pasted into what the blind phase reads (BLINDNESS_LEAK).")

    def review(self, decision: DecisionInput, options: DecisionOptions) -> DecisionResult:
        return review_with(decision, self.spec, _blind_first, options, refuse_leak=True)


class DecisionProposalFirst:
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="proposal_first",
        description="The comparison arm: one pass with the proposal visible, then the verdict.")

    def review(self, decision: DecisionInput, options: DecisionOptions) -> DecisionResult:
        return review_with(decision, self.spec, one_pass("decision_proposal_first"), options, refuse_leak=False)


def review_with(decision: DecisionInput, spec: ModeSpec, phases: Phases, options: DecisionOptions, *,
            refuse_leak: bool) -> DecisionResult:
    model = require_model(spec, options.model, "decision mode")   # usage, raised: not a failed review
    started = time.monotonic()
    check = check_blindness(decision.proposed_solution, decision.blind_fields(), options.thresholds)
    meta = DecisionMeta(mode=spec.name, model=options.model, review_id=uuid.uuid4().hex[:16],
                        blindness=check.to_meta())
    session: Accountant | None = None
    try:
        if refuse_leak:
            check.refuse_if_leaked("proposal")       # before any provider exists, let alone a call
        session = Accountant(get_provider(model, base_url=options.base_url), options.budget, awaiting="an answer")
        verdict = phases(decision, session, meta)
    except ShowcauseError as exc:
        _close(session, meta, started)
        return DecisionResult.failed(exc, meta)
    _close(session, meta, started)
    return DecisionResult.from_verdict(verdict, meta)


def _close(session: Accountant | None, meta: DecisionMeta, started: float) -> None:
    if session is not None:
        meta.usage, meta.cost_usd, meta.model = session.usage(), session.cost, session.model or meta.model
    meta.seconds = round(time.monotonic() - started, 3)
