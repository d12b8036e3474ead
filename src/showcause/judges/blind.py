"""`blind_first` for a repository change: the blind-first variant of evidence_gate.

Phase 1 (blind) sees the task, constraints, context, decision type and risk level — never the plan or
the diff — and explores the BASE tree with the read tools only (search, find_symbol, read_file,
list_files); any other tool is refused by its ledger. Its calls are recorded in the review's ledger with
`tree: "base"` (ids continue T1, T2, … across the review) and carry no shown locations and no artifacts,
so they can never back a claim. Phase 2 continues the same conversation: the mechanical probes run on
head, then the plan, the real diff and the probes' outputs are revealed and the model has all six tools
on head. Its claims go through the same gate as every mode, beside the probes' own claims (the floor,
evidence/settle.py). The phase-1 position is never returned.

Budget: the policy's `blind_*` keys for the whole review (`Budget.blind_from_policy`; the defaults are in
docs/configuration.md, `[review]`); phase 1 may use `_PHASE1_SHARE` of its tokens and wall
clock and `_PHASE1_TOOL_CALLS` tool calls, phase 2 what is left. When phase 2 cannot start, the review
is INCONCLUSIVE with BUDGET_EXCEEDED and `meta.budget_exhausted`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

from showcause.core.answer import strip_reasoning
from showcause.core.errors import BudgetExceeded, ShowcauseError
from showcause.core.meta import JudgeMeta
from showcause.evidence.ledger import Ledger
from showcause.judges.base import JudgeAnswer, ReviewRequest
from showcause.judges.blindness import Thresholds, check_blindness, thresholds
from showcause.judges.budget import MIN_COMPLETION, Budget, estimate_prompt
from showcause.judges.contract import ModeSpec, model_budget, require_model
from showcause.judges.loop import LoopResult, run_tool_loop, tool_specs
from showcause.judges.mechanical import MODEL_FAILURES, probe_claims, probes_after_model_failure, run_probes
from showcause.judges.prompting import change_text, load_prompt, task_sections
from showcause.providers.base import DEFAULT_OPTIONS, CompletionOptions, Message, ModelTurn, Provider, send
from showcause.providers.registry import get_provider
from showcause.tools.registry import REVIEW_TOOLS

__all__ = ["READ_TOOLS", "BlindFirstJudge"]

READ_TOOLS = ("search", "find_symbol", "read_file", "list_files")
_PHASE1_SHARE = 0.4
_PHASE1_TOOL_CALLS = 4
_PHASE1_TURNS = 8


class _Recorder:
    """Passes calls through, counting them and keeping the last turn (the loop returns the parsed answer only)."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        self.name = provider.name
        self.calls = 0
        self.last: ModelTurn | None = None

    def complete(self, messages: Sequence[Message], options: CompletionOptions = DEFAULT_OPTIONS) -> ModelTurn:
        turn = send(self.provider, messages, options)
        self.calls += 1
        self.last = turn
        return turn


def _blind_text(request: ReviewRequest) -> str:
    parts = task_sections("Task", request.task or "(no task was given)", request.constraints, request.context)
    if request.decision_type or request.risk_level:
        parts.append(f"## Decision type: {request.decision_type or 'unknown'}; "
                     f"risk level: {request.risk_level or 'unknown'}")
    return "\n\n".join(parts)


def _spent(result: LoopResult) -> int:
    return int(result.usage.get("prompt_tokens", 0)) + int(result.usage.get("completion_tokens", 0))


def _sum_usage(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: int(a.get(k, 0)) + int(b.get(k, 0)) for k in ("prompt_tokens", "completion_tokens",
                                                                             "turns")}
    out["cost_estimated"] = bool(a.get("cost_estimated")) or bool(b.get("cost_estimated"))
    return out


class BlindFirstJudge:
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="blind_first", tools=REVIEW_TOOLS, budget="blind_review",   # phases share one budget: one pass
        description="Blind-first evidence review: the model explores the base tree with the four read tools "
                    "knowing only the task, then sees the plan, the real diff and the probes with the six tools "
                    "on head; its claims go through the gate, beside the probes' own.")

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        policy = ledger.ctx.policy
        limits = thresholds(request.blindness_warn, request.blindness_leak,
                            Thresholds(policy.review.blindness_warn, policy.review.blindness_leak))
        check = check_blindness(request.plan, [request.task, *request.constraints, request.context], limits)
        check.refuse_if_leaked("plan")               # before any provider exists, let alone a call
        meta = JudgeMeta(blindness=check.to_meta(), phases=0)
        try:
            return self._run(request, ledger, meta)
        except ShowcauseError as exc:
            exc.meta = meta.merged(exc.meta)
            raise

    def _run(self, request: ReviewRequest, ledger: Ledger, meta: JudgeMeta) -> JudgeAnswer:
        model = _Recorder(get_provider(require_model(self.spec, request.model), base_url=request.base_url))
        total, started = model_budget(self.spec, ledger.ctx.policy), time.monotonic()
        system, explore, reveal = (load_prompt(n) for n in ("blind_first", "blind_first_explore", "blind_first_reveal"))
        prompts = {"blind_first": system[1], "blind_first_explore": explore[1], "blind_first_reveal": reveal[1]}
        meta.prompts = prompts

        # Phase 1: the base tree, read tools only, no plan and no diff anywhere in the messages.
        messages = [Message("system", system[0]), Message("user", f"{_blind_text(request)}\n\n{explore[0]}")]
        base = ledger.view("base", READ_TOOLS)
        before = len(ledger.calls)
        first = run_tool_loop(model, base, messages, Budget(
            tool_calls=_PHASE1_TOOL_CALLS, tokens=int(total.tokens * _PHASE1_SHARE),
            completion_tokens=min(total.completion_tokens, 4_000), seconds=total.seconds * _PHASE1_SHARE,
            turns=_PHASE1_TURNS), tools=[s for s in tool_specs() if s.name in READ_TOOLS])
        meta.phases = 1
        made = len(ledger.calls) - before
        position = strip_reasoning(model.last.content if model.last else "") or first.answer.model_dump_json()
        messages.append(Message("assistant", position))

        # Phase 2 must be able to resend the conversation and answer; say so before running the probes.
        left = total.tokens - _spent(first)
        if estimate_prompt(messages) + MIN_COMPLETION > left:
            meta.budget_exhausted = True
            raise BudgetExceeded(f"phase 2 cannot start: the conversation needs about {estimate_prompt(messages)} "
                                 f"tokens and {max(0, left)} of {total.tokens} are left after phase 1")
        probes = run_probes(ledger)
        change = change_text(ledger.ctx.snapshot, replace(request, task=""), probes.all_calls)
        messages.append(Message("user", f"{reveal[0]}\n\n{change}"))
        calls_before = model.calls
        try:
            second = run_tool_loop(model, ledger, messages, Budget(
                tool_calls=max(1, total.tool_calls - made), tokens=left, completion_tokens=total.completion_tokens,
                seconds=max(1.0, total.seconds - (time.monotonic() - started)),
                turns=max(2, total.turns - int(first.usage.get("turns", 0)))))
        except MODEL_FAILURES as exc:
            if isinstance(exc, BudgetExceeded) and model.calls == calls_before:
                meta.budget_exhausted = True
            fallback = probes_after_model_failure(exc, probes)
            # A completed review names the answer's prompts (JudgeAnswer.prompts), not the judge's meta.
            fallback.meta = replace(meta, prompts=None).merged(fallback.meta)
            fallback.meta.phases = 2
            return fallback
        cost = None if first.cost_usd is None and second.cost_usd is None else \
            (first.cost_usd or 0.0) + (second.cost_usd or 0.0)
        return JudgeAnswer(second.answer, model=second.model or first.model or model.name,
                           usage=_sum_usage(first.usage, second.usage), cost_usd=cost, prompts=prompts,
                           meta=replace(meta, prompts=None, phases=2), probe_claims=probe_claims(probes))
