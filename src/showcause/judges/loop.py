"""The bounded tool loop every model-driven mode uses.

Budgets (defaults: the policy's `[review]` keys): tool calls, tokens per review — a hard cap: a call whose prompt
estimate plus `max_tokens` cannot fit is not made —, completion tokens per call, a wall-clock deadline
that also bounds the processes tools start, and a turn limit. At a cap the model gets one forced final
turn with tools disabled; tool calls it still makes are refused, not run. Invalid tool names or
arguments go back to the model as refused calls and count against the budget.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from showcause.core.answer import parse_answer
from showcause.core.claims import FinalAnswer
from showcause.core.errors import MalformedAnswer, OutputTruncatedError
from showcause.evidence.ledger import Ledger
from showcause.judges.budget import Accountant, Budget
from showcause.providers.base import Message, ModelTurn, Provider, ToolCallRequest, ToolSpec
from showcause.tools.registry import tool_schemas

__all__ = ["ANSWER_SCHEMA", "LoopResult", "ask_for_answer", "run_tool_loop", "tool_specs"]

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


# What a turn without tools must answer with (the JSON final answer, docs/modes.md), for servers that can
# constrain their output to a schema: small local models then answer in shape instead of in prose.
ANSWER_SCHEMA: dict[str, Any] = _shape_only(FinalAnswer.model_json_schema())


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


def _call(state: Accountant, messages: list[Message], tools: Sequence[ToolSpec]) -> ModelTurn:
    """One model call; a call without tools is one where an answer is due, so it asks for the answer's schema."""
    return state.ask(messages, tools=tools, schema=ANSWER_SCHEMA)


def _run_tools(ledger: Ledger, state: Accountant, calls: Sequence[ToolCallRequest], allowed: int) -> list[Message]:
    out = []
    for i, req in enumerate(calls):
        if i >= allowed:
            out.append(Message("tool", "refused: the tool budget is used up; this call was not run",
                               tool_call_id=req.id, name=req.name))
            continue
        # The review deadline also bounds how long the processes a tool starts may run (a wait for a free
        # process slot, see sandbox/runner.py, comes on top); the review's own policy is left as it is.
        limit = max(1.0, min(ledger.ctx.policy.process.timeout_s, state.seconds_left() - 1))
        call = ledger.within(limit).call(req.name, req.arguments)
        out.append(Message("tool", call.output, tool_call_id=req.id, name=req.name))
    return out


def run_tool_loop(provider: Provider, ledger: Ledger, messages: list[Message], budget: Budget,
                  tools: Sequence[ToolSpec] | None = None) -> LoopResult:
    """Drive the model until it answers; tools run through the ledger (ids continue from earlier calls)."""
    state = Accountant(provider, budget)
    specs = list(tools) if tools is not None else tool_specs(ledger.tools)   # what the ledger would run
    made = 0
    forced = not specs
    while True:
        turn = _call(state, messages, [] if forced else specs)
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
            raise OutputTruncatedError("the model's answer was cut at the completion-token limit")
        answer = _parse_with_repair(state, messages, turn.content)
        return LoopResult(answer, state.usage(), state.cost, state.model)


def _parse_with_repair(state: Accountant, messages: list[Message], content: str) -> FinalAnswer:
    try:
        return parse_answer(content)
    except MalformedAnswer as first:
        messages += [Message("assistant", content),
                     Message("user", f"Your answer could not be used: {first.message}. Reply with only the JSON "
                                     "final answer described in the instructions.")]
        turn = _call(state, messages, [])
        if turn.finish_reason == "length" and not turn.content.strip():
            raise OutputTruncatedError("the repaired answer was cut at the completion-token limit") from first
        return parse_answer(turn.content)


def ask_for_answer(provider: Provider, messages: list[Message], budget: Budget) -> LoopResult:
    """One pass with no tools (the baselines), with the same answer parsing and one repair."""
    state = Accountant(provider, budget)
    turn = _call(state, messages, [])
    if turn.finish_reason == "length":
        raise OutputTruncatedError("the model's answer was cut at the completion-token limit")
    answer = _parse_with_repair(state, messages, turn.content)
    return LoopResult(answer, state.usage(), state.cost, state.model)
