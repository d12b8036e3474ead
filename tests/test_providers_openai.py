"""The OpenAI-compatible provider over a real loopback HTTP server: request shapes, parsing, refused
parameters, usage and cost."""

# ruff: noqa: F811  (the fixtures imported from provider_harness are parameters of the tests below)
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from llm_servers import (
    OpenAIServer,
    Recorded,
    reject_param,
    turn,
)
from provider_harness import (  # noqa: F401  (clean_env, oa, an: fixtures)
    CONVERSATION,
    FAST,
    READ,
    SEARCH,
    SECRET,
    clean_env,
    clear_provider_env,
    oa,
    openai_at,
)
from showcause.core.errors import (
    MalformedResponseError,
    ProviderHTTPError,
)
from showcause.providers import (
    CompletionOptions,
    Message,
    Provider,
    ProviderConfig,
    clean_content,
    get_provider,
)
from showcause.providers.openai import OpenAIProvider

pytestmark = pytest.mark.timeout(60)


# ---------------------------------------------------------------- OpenAI-compatible: request shapes


def test_openai_request_is_exact_wire_json(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn("done"))
    provider = openai_at(oa, monkeypatch)
    provider.complete(CONVERSATION, CompletionOptions(tools=(SEARCH, READ), max_tokens=321, temperature=0.2))
    (request,) = oa.requests
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": "gpt-5-mini",
        "messages": [
            {"role": "system", "content": "You are a reviewer."},
            {"role": "user", "content": "Review this patch."},
            {
                "role": "assistant",
                "content": "Let me look.",
                "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "search", "arguments": '{"pattern": "legacy_id"}'}},
                    {"id": "call_2", "type": "function",
                     "function": {"name": "read_file", "arguments": '{"path": "src/a.py"}'}},
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "T1 src/a.py:3: legacy_id = 1"},
            {"role": "tool", "tool_call_id": "call_2", "content": "T2 1 | legacy_id = 1"},
            {"role": "user", "content": "Now answer."},
        ],
        "tools": [
            {"type": "function", "function": {"name": "search", "description": "Search the repository.",
                                              "parameters": SEARCH.input_schema}},
            {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                              "parameters": READ.input_schema}},
        ],
        "tool_choice": "auto",
        "max_tokens": 321,
        "temperature": 0.2,
    }


def test_tool_choice_none_sends_no_tools_at_all(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn("final"))
    openai_at(oa, monkeypatch).complete(CONVERSATION, CompletionOptions(tools=(SEARCH,), tool_choice="none"))
    body = oa.requests[0].body
    assert "tools" not in body and "tool_choice" not in body
    assert "temperature" not in body  # not sent unless asked for


def test_tool_choice_required(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn(tool_calls=[("search", {"pattern": "x"})]))
    openai_at(oa, monkeypatch).complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH,), tool_choice="required"))
    assert oa.requests[0].body["tool_choice"] == "required"


def test_official_openai_uses_max_completion_tokens_and_reasoning_effort(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai:gpt-5-mini", config=ProviderConfig(reasoning_effort="low"))
    assert isinstance(provider, OpenAIProvider) and provider.base_url == "https://api.openai.com/v1"
    body = provider.build_body(CONVERSATION[:2], CompletionOptions(max_tokens=77))
    assert body == {
        "model": "gpt-5-mini",
        "messages": [{"role": "system", "content": "You are a reviewer."},
                     {"role": "user", "content": "Review this patch."}],
        "max_completion_tokens": 77,
        "reasoning_effort": "low",
    }


# ---------------------------------------------------------------- OpenAI-compatible: parsing


def test_parses_content_tool_calls_usage_and_model(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(
        turn("thinking aloud", [("search", {"pattern": "legacy_id"}), ("read_file", {"path": "a.py"})],
             usage={"prompt_tokens": 1200, "completion_tokens": 80}, model="gpt-5-mini-2025-08-07"),
    )
    provider = openai_at(oa, monkeypatch)
    assert isinstance(provider, Provider)
    result = provider.complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH, READ)))
    assert result.content == "thinking aloud"
    assert result.finish_reason == "tool_calls"
    assert result.model == "gpt-5-mini-2025-08-07"
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("search", {"pattern": "legacy_id"}), ("read_file", {"path": "a.py"}),
    ]
    assert all(c.id.startswith("call_") for c in result.tool_calls)
    assert result.usage.prompt_tokens == 1200 and result.usage.completion_tokens == 80


def test_unknown_tool_and_unparsable_arguments_are_passed_through(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    oa.add_turns(turn(tool_calls=[("rm_rf", {"path": "/"}), ("search", '{"pattern": "x"'), ("search", "[1, 2]")]))
    result = openai_at(oa, monkeypatch).complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH,)))
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("rm_rf", {"path": "/"}), ("search", '{"pattern": "x"'), ("search", "[1, 2]"),
    ]


def test_truncated_answer_is_reported_not_raised(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn('{"summary": "cut of', finish_reason="length"))
    result = openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert result.finish_reason == "length" and result.content == '{"summary": "cut of'


def test_raw_content_keeps_think_blocks_and_clean_content_strips_them(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = '<think>hmm, KEEP?</think>\n```json\n{"summary": "ok", "claims": []}\n```'
    oa.add_turns(turn(raw))
    result = openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert result.content == raw
    assert clean_content(result.content) == '{"summary": "ok", "claims": []}'
    assert clean_content("<think>never closed") == ""
    assert clean_content("template opened it</think>\n{}") == "{}"
    assert clean_content('Here you go:\n```\n{"a": 1}\n```\nbye') == '{"a": 1}'
    assert clean_content("plain") == "plain"


def test_model_that_never_stops_calling_tools(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.repeat_last = True
    oa.add_turns(turn(tool_calls=[("search", {"pattern": "again"})]))
    provider = openai_at(oa, monkeypatch)
    for _ in range(4):
        assert provider.complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH,))).tool_calls[0].name == "search"
    assert len(oa.requests) == 4


class LlamaCppServer(OpenAIServer):
    """llama-cpp-python 0.3.36's server with `--chat_format chatml-function-calling`, as far as the wire goes.

    Tool calls come back with `content: null`, ids like `call__0_search_cmpl-…` and, for a single call, the legacy
    `function_call` beside `tool_calls`. Its request models refuse an assistant message whose content is not a
    string, with HTTP 500 and pydantic's error list.
    """

    def handle(self, method: str, path: str, headers: dict[str, str], body: Any, raw: bytes):
        messages = body.get("messages") if isinstance(body, dict) else None
        for n, message in enumerate(messages or []):
            if message.get("role") == "assistant" and not isinstance(message.get("content"), str):
                self.requests.append(Recorded(method, path, headers, body, raw, time.monotonic()))
                return self._error(500, f"1 validation error:\n  {{'type': 'string_type', 'loc': ('body', "
                                        f"'messages', {n}, 'ChatCompletionRequestAssistantMessage', 'content'), "
                                        "'msg': 'Input should be a valid string', 'input': None}")
        return super().handle(method, path, headers, body, raw)

    def render(self, turn: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        data = super().render(turn, body)
        message = data["choices"][0]["message"]
        del message["refusal"]
        calls = message.get("tool_calls") or []
        for i, call in enumerate(calls):
            call["id"] = f"call__{i}_{call['function']['name']}_{data['id'].removeprefix('chat')}"
        if len(calls) == 1:
            message["function_call"] = dict(calls[0]["function"])
        return data


def test_llama_cpp_tool_call_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: the follow-up request once sent the tool-calling assistant message with `content: null`."""
    with LlamaCppServer() as server:
        server.add_turns(turn(tool_calls=[("search", {"pattern": "legacy_id"})]), turn("done"))
        provider = openai_at(server, monkeypatch)
        first = provider.complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH,)))
        assert (first.content, first.finish_reason) == ("", "tool_calls")
        assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
            ("call__0_search_cmpl-1", "search", {"pattern": "legacy_id"})]
        follow_up = [*CONVERSATION[:2], Message("assistant", first.content, tool_calls=first.tool_calls),
                     Message("tool", "T1 src/a.py:3: legacy_id = 1", tool_call_id="call__0_search_cmpl-1")]
        assert provider.complete(follow_up, CompletionOptions(tools=(SEARCH,))).content == "done"
        bodies = [r.body for r in server.posts()]
    assert len(bodies) == 2
    assert bodies[1]["messages"][2:] == [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call__0_search_cmpl-1", "type": "function",
             "function": {"name": "search", "arguments": '{"pattern": "legacy_id"}'}}]},
        {"role": "tool", "tool_call_id": "call__0_search_cmpl-1", "content": "T1 src/a.py:3: legacy_id = 1"},
    ]


def test_list_models(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = openai_at(oa, monkeypatch)
    assert isinstance(provider, OpenAIProvider)
    assert provider.list_models() == ["test-model"]
    assert oa.requests[0].method == "GET" and oa.requests[0].path == "/v1/models"


def test_error_inside_a_200_body(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = openai_at(oa, monkeypatch)
    assert isinstance(provider, OpenAIProvider)
    with pytest.raises(ProviderHTTPError, match="upstream overloaded"):
        provider.parse_response({"error": {"message": "upstream overloaded", "code": 502}})
    with pytest.raises(MalformedResponseError):
        provider.parse_response({"id": "x", "choices": []})


# ---------------------------------------------------------------- rejected parameters


def test_rejected_temperature_is_dropped_once_and_remembered(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.reject_params = {"temperature"}
    oa.add_turns(turn("one"), turn("two"))
    provider = openai_at(oa, monkeypatch)
    assert provider.complete(CONVERSATION[:2], CompletionOptions(temperature=0.0)).content == "one"
    assert provider.complete(CONVERSATION[:2], CompletionOptions(temperature=0.0)).content == "two"
    assert ["temperature" in r.body for r in oa.requests] == [True, False, False]


def test_rejected_parameter_is_not_retried_a_second_time(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(reject_param("temperature"), times=2)
    oa.add_turns(turn("never"))
    with pytest.raises(ProviderHTTPError, match="temperature") as info:
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2], CompletionOptions(temperature=0.5))
    assert info.value.status == 400
    assert len(oa.requests) == 2
    assert "temperature" in oa.requests[0].body and "temperature" not in oa.requests[1].body


def test_max_tokens_swapped_for_max_completion_tokens(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.reject_params = {"max_tokens"}
    oa.add_turns(turn("ok"))
    openai_at(oa, monkeypatch).complete(CONVERSATION[:2], CompletionOptions(max_tokens=900))
    first, second = (r.body for r in oa.requests)
    assert first["max_tokens"] == 900 and "max_completion_tokens" not in first
    assert second["max_completion_tokens"] == 900 and "max_tokens" not in second


def test_max_completion_tokens_swapped_back_only_once(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.reject_params = {"max_tokens", "max_completion_tokens"}
    oa.add_turns(turn("never"))
    with pytest.raises(ProviderHTTPError):
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert len(oa.requests) == 2


def test_rejected_reasoning_effort_is_dropped(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.reject_params = {"reasoning_effort"}
    oa.add_turns(turn("ok"))
    openai_at(oa, monkeypatch, reasoning_effort="high").complete(CONVERSATION[:2])
    assert [r.body.get("reasoning_effort") for r in oa.requests] == ["high", None]


# ---------------------------------------------------------------- usage and cost


def test_openrouter_reports_cost(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", SECRET)
    oa.add_turns(turn("ok", usage={"prompt_tokens": 500, "completion_tokens": 40}, cost=0.00123))
    provider = get_provider("openrouter:z-ai/glm-4.6", base_url=oa.url, config=replace(FAST, reasoning_effort="low"))
    assert provider.name == "openrouter:z-ai/glm-4.6"
    usage = provider.complete(CONVERSATION[:2]).usage
    assert usage.cost_usd == pytest.approx(0.00123) and usage.estimated is False
    body = oa.requests[0].body
    assert body["model"] == "z-ai/glm-4.6" and body["reasoning"] == {"effort": "low"}
    assert body["usage"] == {"include": True} and "reasoning_effort" not in body
    assert oa.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_cost_estimated_from_price_table_and_flagged(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn("ok", usage={"prompt_tokens": 1_000_000, "completion_tokens": 100_000}))
    usage = openai_at(oa, monkeypatch, model="gpt-5-mini").complete(CONVERSATION[:2]).usage
    assert usage.prompt_tokens == 1_000_000 and usage.completion_tokens == 100_000
    assert usage.cost_usd == pytest.approx(0.25 + 0.2) and usage.estimated is True


def test_usage_absent_is_estimated(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn("x" * 400, usage=None))
    usage = openai_at(oa, monkeypatch).complete(CONVERSATION[:2]).usage
    assert usage.estimated is True and usage.completion_tokens == 100 and usage.prompt_tokens > 0
    assert usage.cost_usd is not None and usage.cost_usd > 0


def test_unknown_model_has_unknown_cost(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn("ok", usage={"prompt_tokens": 10, "completion_tokens": 2}))
    usage = openai_at(oa, monkeypatch, model="mystery-7b").complete(CONVERSATION[:2]).usage
    assert usage.cost_usd is None and usage.estimated is False


def test_ollama_needs_no_key_and_costs_nothing(oa: OpenAIServer) -> None:
    oa.add_turns(turn("ok", usage={"prompt_tokens": 10, "completion_tokens": 2}))
    provider = get_provider("ollama:qwen3:14b", base_url=oa.url, config=FAST)
    assert provider.name == "ollama:qwen3:14b"
    usage = provider.complete(CONVERSATION[:2]).usage
    assert usage.cost_usd == 0.0
    assert "authorization" not in oa.requests[0].headers and oa.requests[0].body["model"] == "qwen3:14b"


def test_ollama_default_base_and_bare_host(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = get_provider("ollama:llama3")
    assert isinstance(provider, OpenAIProvider) and provider.base_url == "http://127.0.0.1:11434/v1"
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:11434")
    provider = get_provider("ollama:llama3")
    assert isinstance(provider, OpenAIProvider) and provider.base_url == "http://10.0.0.5:11434/v1"


def test_openai_base_url_env_and_optional_key(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", oa.url)
    oa.add_turns(turn("local"))
    provider = get_provider("openai:local-model", config=FAST)
    assert provider.complete(CONVERSATION[:2]).content == "local"
    assert "authorization" not in oa.requests[0].headers
