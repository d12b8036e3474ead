"""The bounded tool loop every model-driven mode uses.

Budgets (defaults: the policy's `[review]` keys): tool calls, tokens per review — a hard cap: a call whose prompt
estimate plus `max_tokens` cannot fit is not made —, completion tokens per call, a wall-clock deadline
that also bounds the processes tools start, and a turn limit. At a cap the model gets one forced final
turn with tools disabled; tool calls it still makes are refused, not run. Invalid tool names or
arguments go back to the model as refused calls and count against the budget.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from showcause.core.answer import MalformedAnswer, parse_answer
from showcause.core.claims import FinalAnswer
from showcause.core.errors import ShowcauseError
from showcause.evidence.ledger import Ledger
from showcause.providers.base import Message, Provider, ToolCallRequest, ToolSpec, schema_kwargs
from showcause.providers.errors import OutputTruncatedError
from showcause.sandbox.policy import Policy
from showcause.sandbox.policy_model import ReviewSection
from showcause.tools.registry import tool_schemas

__all__ = ["ANSWER_SCHEMA", "Budget", "BudgetExceeded", "LoopResult", "OutputTruncated", "ReviewTimeout",
           "ask_for_answer", "run_tool_loop", "tool_specs"]

_MIN_COMPLETION = 256
_FORCED = ("The tool budget for this review is used up. Give your final answer now, as the JSON described "
           "in the instructions, without calling tools.")


def _shape_only(schema: Any, names: bool = False) -> Any:
    """The schema without length and count limits, titles and defaults: servers that compile a schema to a
    grammar (llama.cpp) unroll `maxLength: 4000` into thousands of nested rules and fail. The answer is
    validated in full when it is parsed."""
    if isinstance(schema, dict):  # `names`: a `properties` or `$defs` mapping, whose keys are names, not keywords
        return {k: _shape_only(v, k in ("properties", "$defs") and not names) for k, v in schema.items()
                if names or k not in ("maxLength", "minLength", "maxItems", "minItems", "title", "default")}
    if isinstance(schema, list):
        return [_shape_only(v) for v in schema]
    return schema


# What a turn without tools must answer with (the JSON final answer of DESIGN.md), for servers that can
# constrain their output to a schema: small local models then answer in shape instead of in prose.
ANSWER_SCHEMA: dict[str, Any] = _shape_only(FinalAnswer.model_json_schema())

class BudgetExceeded(ShowcauseError):
    code = "BUDGET_EXCEEDED"


class ReviewTimeout(ShowcauseError):
    code = "TIMEOUT"


OutputTruncated = OutputTruncatedError


# The defaults are the policy model's (`[review]` of sandbox/policy.toml), defined there only.
_REVIEW = ReviewSection()


@dataclass(frozen=True)
class Budget:
    tool_calls: int = _REVIEW.max_tool_calls
    tokens: int = _REVIEW.max_review_tokens
    completion_tokens: int = _REVIEW.max_completion_tokens
    seconds: float = _REVIEW.review_timeout_s
    turns: int = _REVIEW.max_turns

    @classmethod
    def from_policy(cls, p: Policy) -> Budget:
        """The policy's `[review]` keys (policy.toml, the base tree's .showcause.toml, --config)."""
        r = p.review
        return cls(tool_calls=r.max_tool_calls, tokens=r.max_review_tokens, completion_tokens=r.max_completion_tokens,
                   seconds=r.review_timeout_s, turns=r.max_turns)

    @classmethod
    def blind_from_policy(cls, p: Policy) -> Budget:
        """blind_first on a repository change: the `blind_*` keys, with the same tool calls and completions."""
        r = p.review
        return replace(cls.from_policy(p), tokens=r.blind_max_review_tokens, seconds=r.blind_review_timeout_s,
                       turns=r.blind_max_turns)


@dataclass
class LoopResult:
    answer: FinalAnswer
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    model: str | None = None


def tool_specs(names: Iterable[str] | None = None) -> list[ToolSpec]:
    """The registry's tools (only ``names``, when given), in registry order."""
    keep = None if names is None else frozenset(names)
    return [ToolSpec(s["name"], s["description"], s["input_schema"]) for s in tool_schemas()
            if keep is None or s["name"] in keep]


def _estimate(messages: Sequence[Message]) -> int:
    """A conservative token estimate (about 3.5 characters a token) for the budget check."""
    chars = sum(len(m.content) + sum(len(json.dumps(c.arguments)) + len(c.name) for c in m.tool_calls)
                for m in messages)
    return int(chars / 3.5) + 16 * len(messages)


@dataclass
class _State:
    budget: Budget
    started: float = field(default_factory=time.monotonic)
    tokens: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    estimated: bool = False
    turns: int = 0
    model: str | None = None

    def left(self) -> float:
        return self.budget.seconds - (time.monotonic() - self.started)

    def usage(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "turns": self.turns, "cost_estimated": self.estimated}


def _call(provider: Provider, state: _State, messages: list[Message], tools: Sequence[ToolSpec]) -> Any:
    """One model call; a call without tools is one where an answer is due, so it asks for the answer's schema."""
    if state.turns >= state.budget.turns:
        raise BudgetExceeded(f"turn limit of {state.budget.turns} reached without a final answer")
    left = state.left()
    if left <= 1:
        raise ReviewTimeout(f"the review deadline of {state.budget.seconds:g} s passed")
    prompt = _estimate(messages)
    room = state.budget.tokens - state.tokens - prompt
    max_tokens = min(state.budget.completion_tokens, room)
    if max_tokens < _MIN_COMPLETION:
        raise BudgetExceeded(f"the next call needs about {prompt + _MIN_COMPLETION} tokens; "
                             f"{state.budget.tokens - state.tokens} of {state.budget.tokens} are left")
    turn = provider.complete(messages, tools=tools, tool_choice="auto" if tools else "none", max_tokens=max_tokens,
                             timeout_s=min(left, 180.0), **schema_kwargs(provider, None if tools else ANSWER_SCHEMA))
    state.turns += 1
    used_prompt = turn.usage.prompt_tokens or prompt
    used_completion = turn.usage.completion_tokens or max(1, int(len(turn.content) / 3.5))
    state.prompt_tokens += used_prompt
    state.completion_tokens += used_completion
    state.tokens += used_prompt + used_completion
    if turn.usage.cost_usd is not None:
        state.cost = (state.cost or 0.0) + turn.usage.cost_usd
    state.estimated = state.estimated or turn.usage.estimated or not turn.usage.prompt_tokens
    state.model = turn.model or state.model
    return turn


def _run_tools(ledger: Ledger, state: _State, calls: Sequence[ToolCallRequest], allowed: int) -> list[Message]:
    out = []
    for i, req in enumerate(calls):
        if i >= allowed:
            out.append(Message("tool", "refused: the tool budget is used up; this call was not run",
                               tool_call_id=req.id, name=req.name))
            continue
        # The review deadline also bounds how long the processes a tool starts may run (a wait for a free
        # process slot, see sandbox/runner.py, comes on top).
        limit = max(1.0, min(ledger.ctx.policy.process.timeout_s, state.left() - 1))
        ledger.ctx.policy = ledger.ctx.policy.merged({"process": {"timeout_s": limit}}, "the review deadline")
        call = ledger.call(req.name, req.arguments)
        out.append(Message("tool", call.output, tool_call_id=req.id, name=req.name))
    return out


def run_tool_loop(provider: Provider, ledger: Ledger, messages: list[Message], budget: Budget,
                  tools: Sequence[ToolSpec] | None = None) -> LoopResult:
    """Drive the model until it answers; tools run through the ledger (ids continue from earlier calls)."""
    state = _State(budget)
    specs = list(tools) if tools is not None else tool_specs(ledger.tools)   # what the ledger would run
    made = 0
    forced = not specs
    while True:
        turn = _call(provider, state, messages, [] if forced else specs)
        if turn.tool_calls:
            if forced:
                # Tools are off: the calls are refused, never run, and the model is asked once more.
                messages += [Message("assistant", turn.content, tool_calls=turn.tool_calls),
                             *_run_tools(ledger, state, turn.tool_calls, 0), Message("user", _FORCED)]
                continue
            allowed = max(0, budget.tool_calls - made)
            made += min(allowed, len(turn.tool_calls))
            messages += [Message("assistant", turn.content, tool_calls=turn.tool_calls),
                         *_run_tools(ledger, state, turn.tool_calls, allowed)]
            if made >= budget.tool_calls:
                forced = True
                messages.append(Message("user", _FORCED))
            continue
        if turn.finish_reason == "length":
            raise OutputTruncated("the model's answer was cut at the completion-token limit")
        answer = _parse_with_repair(provider, state, messages, turn.content)
        return LoopResult(answer, state.usage(), state.cost, state.model)


def _parse_with_repair(provider: Provider, state: _State, messages: list[Message], content: str) -> FinalAnswer:
    try:
        return parse_answer(content)
    except MalformedAnswer as first:
        messages += [Message("assistant", content),
                     Message("user", f"Your answer could not be used: {first.message}. Reply with only the JSON "
                                     "final answer described in the instructions.")]
        turn = _call(provider, state, messages, [])
        if turn.finish_reason == "length" and not turn.content.strip():
            raise OutputTruncated("the repaired answer was cut at the completion-token limit") from first
        return parse_answer(turn.content)


def ask_for_answer(provider: Provider, messages: list[Message], budget: Budget) -> LoopResult:
    """One pass with no tools (the baselines), with the same answer parsing and one repair."""
    state = _State(budget)
    turn = _call(provider, state, messages, [])
    if turn.finish_reason == "length":
        raise OutputTruncated("the model's answer was cut at the completion-token limit")
    answer = _parse_with_repair(provider, state, messages, turn.content)
    return LoopResult(answer, state.usage(), state.cost, state.model)
