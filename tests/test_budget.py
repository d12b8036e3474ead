"""One budget for every model mode: the same prompt estimate and the same floor decide each call's
`max_tokens`, in the tool loop and in the decision modes alike, and a call that cannot fit is never sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from llm_servers import OpenAIServer, turn
from showcause.core.decision import DecisionInput
from showcause.core.errors import BudgetExceeded
from showcause.decision.modes import DecisionOptions
from showcause.decision.registry import run_decision
from showcause.judges.budget import MIN_COMPLETION, Budget, estimate_prompt
from showcause.judges.loop import ask_for_answer
from showcause.providers import Message, ProviderConfig, get_provider

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "decision.json"
VERDICT = {"verdict": "KEEP", "recommendation": "Ship it.", "confidence": 0.8,
           "falsification_probe": {"description": "kill a pod mid-burst", "expected_signal": "no lost delivery"}}


def _sent(body: dict[str, Any]) -> list[Message]:
    """The conversation a request carried, back in the neutral format (plain text messages only)."""
    return [Message(m["role"], m["content"]) for m in body["messages"]]


def test_the_tool_loop_asks_for_what_the_budget_leaves():
    messages = [Message("system", "You review changes."), Message("user", "Review this change, please.")]
    budget = Budget(tokens=2_000, completion_tokens=8_000)
    with OpenAIServer() as server:
        server.add_turns(turn(content='{"summary": "fine", "claims": []}'))
        provider = get_provider("openai:test-model", base_url=server.url, config=ProviderConfig(max_retries=0))
        result = ask_for_answer(provider, list(messages), budget)
        (post,) = server.posts()
    assert post.body["max_tokens"] == 2_000 - estimate_prompt(messages)
    assert result.usage == {"prompt_tokens": 11, "completion_tokens": 7, "turns": 1, "cost_estimated": False}


def test_a_call_that_cannot_fit_is_not_sent():
    messages = [Message("system", "You review changes."), Message("user", "Review this change, please.")]
    budget = Budget(tokens=estimate_prompt(messages) + MIN_COMPLETION - 1)
    with OpenAIServer() as server:
        provider = get_provider("openai:test-model", base_url=server.url, config=ProviderConfig(max_retries=0))
        try:
            ask_for_answer(provider, list(messages), budget)
        except BudgetExceeded as exc:
            assert exc.message == (f"the next call needs about {estimate_prompt(messages) + MIN_COMPLETION} tokens; "
                                   f"{budget.tokens} of {budget.tokens} are left")
        else:
            raise AssertionError("the call was made")
        assert server.requests == []


def test_a_decision_review_asks_with_the_same_estimate():
    decision = DecisionInput.model_validate(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps(VERDICT)))
        result = run_decision(decision, "proposal_first", DecisionOptions(
            model="openai:test-model", base_url=server.url, budget=Budget(tokens=5_000, completion_tokens=8_000)))
        (post,) = server.posts()
    assert result.verdict == "KEEP"
    assert post.body["max_tokens"] == 5_000 - estimate_prompt(_sent(post.body))
    assert result.meta.usage == {"prompt_tokens": 11, "completion_tokens": 7, "turns": 1, "cost_estimated": False}
