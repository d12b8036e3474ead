"""The decision modes that exist for the decision benchmark's questions (docs/benchmark.md), beside
blind_first and proposal_first (decision/modes.py), under the same review budget. They live with decision
review and are registered by the bench alone (bench/decision_arms.py, `ARMS`): `showcause review --decision`
has no use for them.

- `proposal_first_2pass`: the compute-matched control of blind_first: two calls with the proposal visible
  (a critique, then a second pass over that critique in the same conversation).
- `independent_only`: phase 1 is blind_first's blind phase; phase 2 is a fresh conversation that holds only
  the phase-1 position (as JSON) and the proposal. The comparer never sees the problem statement, its
  constraints or its evidence: a known confound of this arm (docs/modes.md).
- `decision_judge`: one call with the proposal visible and instructions against critic bias.
"""

from __future__ import annotations

from dataclasses import dataclass

from showcause.core.decision import DecisionInput, DecisionVerdict, parse_verdict
from showcause.core.decision_result import DecisionResult
from showcause.core.errors import BudgetExceeded
from showcause.core.meta import DecisionMeta
from showcause.decision.modes import (
    VERDICT_RESERVE,
    DecisionOptions,
    Phases,
    ask_json,
    blind_phase,
    final_verdict,
    one_pass,
    problem_text,
    proposal_text,
    review_with,
)
from showcause.judges.budget import MIN_COMPLETION, Accountant, estimate_prompt
from showcause.judges.contract import ModeSpec
from showcause.judges.prompting import load_prompt
from showcause.providers.base import Message

__all__ = ["DECISION_JUDGE", "INDEPENDENT_ONLY", "PROPOSAL_FIRST_2PASS"]


def _hashes(meta: DecisionMeta, *names: str) -> list[str]:
    loaded = [load_prompt(n) for n in names]
    meta.name_prompts({n: h for n, (_t, h) in zip(names, loaded, strict=True)})
    return [text for text, _h in loaded]


def _two_pass(d: DecisionInput, session: Accountant, meta: DecisionMeta) -> DecisionVerdict:
    system, critique, again, fmt = _hashes(meta, "decision_system", "decision_proposal_first",
                                           "decision_second_pass", "decision_verdict")
    first = [Message("system", system), Message("user", f"{problem_text(d)}\n\n{critique}\n\n{proposal_text(d)}"
                                                        f"\n\n{fmt}")]
    second = Message("user", f"{again}\n\n{fmt}")
    # The second pass resends the first and its answer: the first may write only what leaves it room.
    p1 = estimate_prompt(first)
    cap = (session.tokens_left() - 2 * p1 - estimate_prompt([second]) - VERDICT_RESERVE) // 2
    if cap < MIN_COMPLETION:
        raise BudgetExceeded(f"both passes need about {2 * (p1 + MIN_COMPLETION) + VERDICT_RESERVE} tokens; "
                             f"the budget is {session.budget.tokens}")
    draft = ask_json(session, first, parse_verdict, cap=cap)
    meta.phases = 1
    messages = [*first, Message("assistant", draft.model_dump_json()), second]
    return final_verdict(session, messages, meta)


def _compare_message(d: DecisionInput, position_json: str, compare: str, fmt: str) -> Message:
    return Message("user", f"{compare}\n\n<position>\n{position_json}\n</position>\n\n{proposal_text(d)}\n\n{fmt}")


def _independent(d: DecisionInput, session: Accountant, meta: DecisionMeta) -> DecisionVerdict:
    system, compare, fmt = _hashes(meta, "decision_system", "decision_compare", "decision_verdict")
    # Sized with an empty position: phase 1's cap leaves room for what it writes.
    _phase1, position = blind_phase(d, session, meta, [Message("system", system), _compare_message(
        d, "", compare, fmt)], resent=False)
    fresh = [Message("system", system), _compare_message(d, position.model_dump_json(), compare, fmt)]
    return final_verdict(session, fresh, meta)


@dataclass(frozen=True)
class _Arm:
    """One arm: its spec, the phases it runs in `review_with`, and whether it refuses a leaked proposal."""

    spec: ModeSpec
    phases: Phases
    refuse_leak: bool = False

    def review(self, decision: DecisionInput, options: DecisionOptions) -> DecisionResult:
        return review_with(decision, self.spec, self.phases, options, refuse_leak=self.refuse_leak)


PROPOSAL_FIRST_2PASS = _Arm(ModeSpec(
    name="proposal_first_2pass",
    description="Benchmark control: two passes with the proposal visible (a critique, then a check of it), as many "
                "calls as blind_first under the same budget."), _two_pass)
INDEPENDENT_ONLY = _Arm(ModeSpec(
    name="independent_only",
    description="Benchmark arm: blind_first's blind phase, then a fresh conversation that sees only that position "
                "(JSON) and the proposal, not the problem. Refuses a leak like blind_first."), _independent,
    refuse_leak=True)
DECISION_JUDGE = _Arm(ModeSpec(
    name="decision_judge",
    description="Benchmark arm: one pass with the proposal visible and instructions against critic bias (intervene "
                "only for a material problem)."), one_pass("decision_judge_decision"))
