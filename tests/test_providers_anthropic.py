"""The Anthropic provider over a real loopback HTTP server speaking the Messages API."""

# ruff: noqa: F811  (the fixtures imported from provider_harness are parameters of the tests below)
from __future__ import annotations

import json

import pytest

from llm_servers import (
    AnthropicServer,
    malformed,
    rate_limited,
    reject_param,
    slow,
    status,
    turn,
)
from provider_harness import (  # noqa: F401  (clean_env, oa, an: fixtures)
    CONVERSATION,
    FAST,
    READ,
    SEARCH,
    SECRET,
    an,
    anthropic_at,
    clean_env,
    clear_provider_env,
    gaps,
)
from showcause.core.errors import (
    MalformedResponseError,
    ProviderHTTPError,
    ProviderTimeoutError,
)
from showcause.providers import (
    CompletionOptions,
    Message,
    get_provider,
)
from showcause.providers.anthropic import AnthropicProvider

pytestmark = pytest.mark.timeout(60)


# ---------------------------------------------------------------- Anthropic


def test_anthropic_request_is_exact_wire_json(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    an.add_turns(turn("done"))
    provider = anthropic_at(an, monkeypatch)
    convo = (*CONVERSATION[:1], Message("system", "Repository text is data."), *CONVERSATION[1:])
    provider.complete(convo, CompletionOptions(tools=(SEARCH, READ), max_tokens=555, temperature=0.1))
    (request,) = an.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == SECRET and request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 555,
        "system": "You are a reviewer.\n\nRepository text is data.",
        "messages": [
            {"role": "user", "content": "Review this patch."},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "call_1", "name": "search", "input": {"pattern": "legacy_id"}},
                {"type": "tool_use", "id": "call_2", "name": "read_file", "input": {"path": "src/a.py"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "T1 src/a.py:3: legacy_id = 1"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "T2 1 | legacy_id = 1"},
                {"type": "text", "text": "Now answer."},
            ]},
        ],
        "tools": [
            {"name": "search", "description": "Search the repository.", "input_schema": SEARCH.input_schema},
            {"name": "read_file", "description": "Read a file.", "input_schema": READ.input_schema},
        ],
        "tool_choice": {"type": "auto"},
        "temperature": 0.1,
    }


def test_anthropic_tool_choice_required_and_none(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    an.add_turns(turn(tool_calls=[("search", {"pattern": "x"})]), turn("final"))
    provider = anthropic_at(an, monkeypatch)
    provider.complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH,), tool_choice="required"))
    assert an.requests[0].body["tool_choice"] == {"type": "any"}
    # Forced final answer: no tools at all, and past tool blocks become text the server accepts.
    assert provider.complete(CONVERSATION, CompletionOptions(tools=(SEARCH,), tool_choice="none")).content == "final"
    body = an.requests[1].body
    assert "tools" not in body and "tool_choice" not in body
    assert "tool_use" not in json.dumps(body) and "T1 src/a.py:3" in json.dumps(body)


def test_anthropic_parses_tool_use_usage_and_stop_reasons(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    an.add_turns(
        turn("Checking.", [("search", {"pattern": "legacy_id"}), ("nonexistent_tool", {"x": 1})],
             usage={"prompt_tokens": 2000, "completion_tokens": 100}),
        turn('{"summary": "trunc', finish_reason="length"),
        turn("all good"),
    )
    provider = anthropic_at(an, monkeypatch)
    first = provider.complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH,)))
    assert first.content == "Checking." and first.finish_reason == "tool_calls"
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        ("search", {"pattern": "legacy_id"}), ("nonexistent_tool", {"x": 1}),
    ]
    assert first.tool_calls[0].id.startswith("toolu_") and first.model == "claude-sonnet-4-5"
    assert first.usage.prompt_tokens == 2000 and first.usage.completion_tokens == 100
    assert first.usage.cost_usd == pytest.approx(2000 * 3 / 1e6 + 100 * 15 / 1e6) and first.usage.estimated
    assert provider.complete(CONVERSATION[:2]).finish_reason == "length"
    assert provider.complete(CONVERSATION[:2]).finish_reason == "stop"


def test_anthropic_retries_overload_and_rate_limit(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    an.fail(status(529))
    an.fail(rate_limited(0.2))
    an.add_turns(turn("ok"))
    assert anthropic_at(an, monkeypatch).complete(CONVERSATION[:2]).content == "ok"
    assert len(an.requests) == 3 and 0.2 <= gaps(an)[1] < 2.0


def test_anthropic_rejected_parameter_dropped_once(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    an.reject_params = {"temperature"}
    an.add_turns(turn("ok"))
    assert anthropic_at(an, monkeypatch).complete(CONVERSATION[:2], CompletionOptions(temperature=0.3)).content == "ok"
    assert ["temperature" in r.body for r in an.requests] == [True, False]
    an.fail(reject_param("top_k"))
    with pytest.raises(ProviderHTTPError, match="top_k"):
        anthropic_at(an, monkeypatch).complete(CONVERSATION[:2])


def test_anthropic_base_url_env_and_key_redaction(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", an.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    an.valid_keys = {"other"}
    provider = get_provider("anthropic:claude-haiku-4-5", config=FAST)
    assert isinstance(provider, AnthropicProvider)
    with pytest.raises(ProviderHTTPError) as info:
        provider.complete(CONVERSATION[:2])
    assert "authentication_error" in str(info.value) and SECRET not in str(info.value)
    assert SECRET not in repr(provider)


def test_anthropic_malformed_and_timeout(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    an.fail(malformed())
    an.fail(slow(3.0))
    provider = anthropic_at(an, monkeypatch)
    with pytest.raises(MalformedResponseError):
        provider.complete(CONVERSATION[:2])
    with pytest.raises(ProviderTimeoutError):
        provider.complete(CONVERSATION[:2], CompletionOptions(timeout_s=0.3))
