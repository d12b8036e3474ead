"""Providers over real loopback HTTP servers speaking the OpenAI and Anthropic wire formats."""

from __future__ import annotations

import itertools
import json
import logging
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from llm_servers import (
    AnthropicServer,
    OpenAIServer,
    Recorded,
    close_connection,
    malformed,
    rate_limited,
    reject_param,
    slow,
    status,
    turn,
)
from showcause.core.errors import EXIT_INCONCLUSIVE
from showcause.providers import (
    ConfigError,
    MalformedResponseError,
    Message,
    OutputTruncatedError,
    Provider,
    ProviderConfig,
    ProviderError,
    ProviderHTTPError,
    ProviderNetworkError,
    ProviderTimeoutError,
    RateLimitedError,
    ToolCallRequest,
    ToolSpec,
    clean_content,
    get_provider,
    known_prefixes,
)
from showcause.providers.anthropic import AnthropicProvider
from showcause.providers.http import HttpResult, find_rejected_param, redact, retry_after_s
from showcause.providers.keys import CommandKey, NoKey
from showcause.providers.openai import OPTIONAL_PARAMS, OpenAIProvider
from showcause.providers.scripted import ScriptedProvider

pytestmark = pytest.mark.timeout(60)

FAST = ProviderConfig(max_retries=3, backoff_base_s=0.01, backoff_max_s=5.0)
SECRET = "sk-test-Zq8v3LmN0pXr5tY7"
ENV_VARS = (
    "OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL", "OPENROUTER_BASE_URL", "OLLAMA_HOST",
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
)
SEARCH = ToolSpec(
    name="search",
    description="Search the repository.",
    input_schema={"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]},
)
READ = ToolSpec(
    name="read_file",
    description="Read a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
CONVERSATION = (
    Message("system", "You are a reviewer."),
    Message("user", "Review this patch."),
    Message(
        "assistant",
        "Let me look.",
        tool_calls=(
            ToolCallRequest("call_1", "search", {"pattern": "legacy_id"}),
            ToolCallRequest("call_2", "read_file", {"path": "src/a.py"}),
        ),
    ),
    Message("tool", "T1 src/a.py:3: legacy_id = 1", tool_call_id="call_1", name="search"),
    Message("tool", "T2 1 | legacy_id = 1", tool_call_id="call_2", name="read_file"),
    Message("user", "Now answer."),
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def oa() -> Iterator[OpenAIServer]:
    server = OpenAIServer().start()
    yield server
    server.stop()


@pytest.fixture
def an() -> Iterator[AnthropicServer]:
    server = AnthropicServer().start()
    yield server
    server.stop()


def openai_at(server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, model: str = "gpt-5-mini", **cfg: Any):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return get_provider(f"openai:{model}", base_url=server.url, config=replace(FAST, **cfg))


def anthropic_at(server: AnthropicServer, monkeypatch: pytest.MonkeyPatch, **cfg: Any):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return get_provider("anthropic:claude-sonnet-4-5", base_url=server.url, config=replace(FAST, **cfg))


def gaps(server: Any) -> list[float]:
    times = [r.at for r in server.requests]
    return [b - a for a, b in itertools.pairwise(times)]


# ---------------------------------------------------------------- OpenAI-compatible: request shapes


def test_openai_request_is_exact_wire_json(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn("done"))
    provider = openai_at(oa, monkeypatch)
    provider.complete(CONVERSATION, tools=(SEARCH, READ), max_tokens=321, temperature=0.2)
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
    openai_at(oa, monkeypatch).complete(CONVERSATION, tools=(SEARCH,), tool_choice="none")
    body = oa.requests[0].body
    assert "tools" not in body and "tool_choice" not in body
    assert "temperature" not in body  # not sent unless asked for


def test_tool_choice_required(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.add_turns(turn(tool_calls=[("search", {"pattern": "x"})]))
    openai_at(oa, monkeypatch).complete(CONVERSATION[:2], tools=(SEARCH,), tool_choice="required")
    assert oa.requests[0].body["tool_choice"] == "required"


def test_official_openai_uses_max_completion_tokens_and_reasoning_effort(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai:gpt-5-mini", config=ProviderConfig(reasoning_effort="low"))
    assert isinstance(provider, OpenAIProvider) and provider.base_url == "https://api.openai.com/v1"
    body = provider.build_body(CONVERSATION[:2], tools=(), tool_choice="auto", max_tokens=77, temperature=None)
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
    result = provider.complete(CONVERSATION[:2], tools=(SEARCH, READ))
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
    result = openai_at(oa, monkeypatch).complete(CONVERSATION[:2], tools=(SEARCH,))
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
        assert provider.complete(CONVERSATION[:2], tools=(SEARCH,)).tool_calls[0].name == "search"
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
        first = provider.complete(CONVERSATION[:2], tools=(SEARCH,))
        assert (first.content, first.finish_reason) == ("", "tool_calls")
        assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
            ("call__0_search_cmpl-1", "search", {"pattern": "legacy_id"})]
        follow_up = [*CONVERSATION[:2], Message("assistant", first.content, tool_calls=first.tool_calls),
                     Message("tool", "T1 src/a.py:3: legacy_id = 1", tool_call_id="call__0_search_cmpl-1")]
        assert provider.complete(follow_up, tools=(SEARCH,)).content == "done"
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


# ---------------------------------------------------------------- retries, timeouts, malformed bodies


def test_retry_after_is_honoured(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(rate_limited(0.2), times=2)
    oa.add_turns(turn("ok"))
    assert openai_at(oa, monkeypatch).complete(CONVERSATION[:2]).content == "ok"
    assert len(oa.requests) == 3
    assert all(0.2 <= gap < 2.0 for gap in gaps(oa)), gaps(oa)


def test_retry_after_ms_header_is_understood() -> None:
    assert retry_after_s({"retry-after-ms": "250"}) == 0.25
    assert retry_after_s({"Retry-After": "3"}) == 3.0
    assert retry_after_s({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0   # in the past
    assert retry_after_s({}) is None


def test_rate_limit_gives_up_after_n_attempts(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(rate_limited(0.05), times=10)
    with pytest.raises(RateLimitedError) as info:
        openai_at(oa, monkeypatch, max_retries=2).complete(CONVERSATION[:2])
    assert info.value.code == "RATE_LIMITED" and info.value.status == 429
    assert len(oa.requests) == 3


def test_retry_after_longer_than_allowed_fails_at_once(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(rate_limited(600))
    with pytest.raises(RateLimitedError, match="600"):
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert len(oa.requests) == 1


@pytest.mark.parametrize("code", [500, 502, 503])
def test_5xx_is_retried_with_backoff(code: int, oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(status(code), times=2)
    oa.add_turns(turn("ok"))
    provider = openai_at(oa, monkeypatch, backoff_base_s=0.1, backoff_max_s=1.0)
    assert provider.complete(CONVERSATION[:2]).content == "ok"
    assert len(oa.requests) == 3
    # equal jitter: retry k waits between base*2^k/2 and base*2^k
    assert 0.05 <= gaps(oa)[0] < 1.0 and 0.1 <= gaps(oa)[1] < 2.0, gaps(oa)


def test_5xx_gives_up_with_provider_http_error(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(status(500), times=10)
    with pytest.raises(ProviderHTTPError) as info:
        openai_at(oa, monkeypatch, max_retries=3).complete(CONVERSATION[:2])
    assert type(info.value) is ProviderHTTPError
    assert info.value.code == "PROVIDER_HTTP_ERROR" and info.value.status == 500
    assert "gave up after 4 attempts" in str(info.value)
    assert len(oa.requests) == 4


def test_closed_port_is_a_network_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai:m", base_url=f"http://127.0.0.1:{port}/v1", config=replace(FAST, max_retries=2))
    with pytest.raises(ProviderNetworkError) as info:
        provider.complete(CONVERSATION[:2])
    assert info.value.code == "PROVIDER_NETWORK_ERROR" and "after 3 attempts" in str(info.value)


def test_bad_base_url_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = get_provider("ollama:m", base_url="ftp://127.0.0.1:1/v1", config=FAST)
    with pytest.raises(ConfigError, match="bad base URL"):
        provider.complete(CONVERSATION[:2])


def test_dropped_connection_is_retried(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(close_connection())
    oa.add_turns(turn("ok"))
    assert openai_at(oa, monkeypatch).complete(CONVERSATION[:2]).content == "ok"
    assert len(oa.requests) == 2


def test_slow_response_times_out_without_retry(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(slow(3.0))
    oa.add_turns(turn("too late"))
    with pytest.raises(ProviderTimeoutError) as info:
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2], timeout_s=0.3)
    assert info.value.code == "TIMEOUT" and info.value.exit_code == EXIT_INCONCLUSIVE
    assert len(oa.requests) == 1


def test_malformed_json_body(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(malformed())
    with pytest.raises(MalformedResponseError) as info:
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert info.value.code == "MALFORMED_RESPONSE"
    assert len(oa.requests) == 1


def test_other_4xx_is_not_retried(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    orphan = (Message("user", "hi"), Message("tool", "result", tool_call_id="call_9"))
    with pytest.raises(ProviderHTTPError, match="must be a response to a preceding") as info:
        openai_at(oa, monkeypatch).complete(orphan)
    assert info.value.status == 400 and len(oa.requests) == 1


# ---------------------------------------------------------------- rejected parameters


def test_rejected_temperature_is_dropped_once_and_remembered(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.reject_params = {"temperature"}
    oa.add_turns(turn("one"), turn("two"))
    provider = openai_at(oa, monkeypatch)
    assert provider.complete(CONVERSATION[:2], temperature=0.0).content == "one"
    assert provider.complete(CONVERSATION[:2], temperature=0.0).content == "two"
    assert ["temperature" in r.body for r in oa.requests] == [True, False, False]


def test_rejected_parameter_is_not_retried_a_second_time(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(reject_param("temperature"), times=2)
    oa.add_turns(turn("never"))
    with pytest.raises(ProviderHTTPError, match="temperature") as info:
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2], temperature=0.5)
    assert info.value.status == 400
    assert len(oa.requests) == 2
    assert "temperature" in oa.requests[0].body and "temperature" not in oa.requests[1].body


def test_max_tokens_swapped_for_max_completion_tokens(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.reject_params = {"max_tokens"}
    oa.add_turns(turn("ok"))
    openai_at(oa, monkeypatch).complete(CONVERSATION[:2], max_tokens=900)
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


# ---------------------------------------------------------------- registry and keys


def test_unknown_prefix_lists_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        get_provider("gemini:pro")
    for prefix in ("anthropic", "ollama", "openai", "openrouter", "scripted"):
        assert prefix in str(info.value) and prefix in known_prefixes()
    assert info.value.code == "CONFIG_ERROR" and info.value.exit_code == EXIT_INCONCLUSIVE
    with pytest.raises(ConfigError):
        get_provider("gpt-5-mini")
    with pytest.raises(ConfigError):
        get_provider("openai:")


@pytest.mark.parametrize(
    ("spec", "env"),
    [("openai:gpt-5-mini", "OPENAI_API_KEY"), ("openrouter:x/y", "OPENROUTER_API_KEY"),
     ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY")],
)
def test_missing_key_names_the_variable(spec: str, env: str) -> None:
    with pytest.raises(ConfigError, match=env):
        get_provider(spec)
    with pytest.raises(ConfigError, match="MY_KEY"):
        get_provider(spec, config=ProviderConfig(api_key_env="MY_KEY"))


def test_key_never_in_errors_repr_or_logs(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    oa.valid_keys = {"some-other-key"}
    oa.fail(rate_limited(0.01))
    provider = openai_at(oa, monkeypatch)
    with pytest.raises(ProviderHTTPError) as info:
        provider.complete(CONVERSATION[:2])
    assert info.value.status == 401 and "OPENAI_API_KEY" in str(info.value)
    assert "Incorrect API key provided" in str(info.value)   # the server echoed it; we redacted it
    texts = [str(info.value), repr(info.value), repr(provider), provider.name, caplog.text]
    assert all(SECRET not in text for text in texts)
    assert oa.posts()[-1].headers["authorization"] == f"Bearer {SECRET}"  # it was really sent


def test_extra_header_credentials_are_redacted(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(status(403, echo_headers=True))
    gateway = "gw-token-77aa88bb99"
    provider = openai_at(oa, monkeypatch, extra_headers={"X-Gateway-Token": gateway})
    with pytest.raises(ProviderHTTPError) as info:
        provider.complete(CONVERSATION[:2])
    assert "x-gateway-token" in str(info.value) and info.value.status == 403
    assert gateway not in str(info.value) and SECRET not in str(info.value)
    assert oa.requests[0].headers["x-gateway-token"] == gateway


def test_redact_masks_known_and_key_shaped_values() -> None:
    text = "bad key abc12345 and sk-proj-ABCDEFGH1234 with Authorization: Bearer tok_999 and api_key=zzz"
    out = redact(text, ["abc12345"])
    for leaked in ("abc12345", "sk-proj-ABCDEFGH1234", "tok_999", "zzz"):
        assert leaked not in out


@pytest.fixture
def counter_command(tmp_path: Path) -> str:
    counter = tmp_path / "n"
    counter.write_text("0")
    return f'n=$(($(cat {counter}) + 1)); echo $n > {counter}; echo "key-$n"; echo "noise on stderr" >&2'


def test_key_command_is_cached_for_its_ttl(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch, counter_command: str
) -> None:
    oa.add_turns(turn("a"), turn("b"), turn("c"))
    config = replace(FAST, key_command=counter_command, key_ttl_s=0.5)
    provider = get_provider("openai:m", base_url=oa.url, config=config)
    provider.complete(CONVERSATION[:2])
    provider.complete(CONVERSATION[:2])
    time.sleep(0.6)
    provider.complete(CONVERSATION[:2])
    assert [r.headers["authorization"] for r in oa.requests] == ["Bearer key-1", "Bearer key-1", "Bearer key-2"]


def test_key_command_reminted_once_on_401(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch, counter_command: str
) -> None:
    oa.valid_keys = {"key-2"}
    oa.add_turns(turn("ok"))
    provider = get_provider("openai:m", base_url=oa.url, config=replace(FAST, key_command=counter_command))
    assert provider.complete(CONVERSATION[:2]).content == "ok"
    assert [r.headers["authorization"] for r in oa.requests] == ["Bearer key-1", "Bearer key-2"]


def test_key_command_reminted_only_once(oa: OpenAIServer, counter_command: str) -> None:
    oa.valid_keys = {"key-99"}
    provider = get_provider("openai:m", base_url=oa.url, config=replace(FAST, key_command=counter_command))
    with pytest.raises(ProviderHTTPError) as info:
        provider.complete(CONVERSATION[:2])
    assert info.value.status == 401 and len(oa.requests) == 2
    assert "key-1" not in str(info.value) and "key-2" not in str(info.value)


def test_env_key_is_not_reminted(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.valid_keys = {"nope"}
    with pytest.raises(ProviderHTTPError):
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert len(oa.requests) == 1


def test_failing_key_command_is_a_config_error_without_its_output() -> None:
    source = CommandKey("echo sk-leaked-secret-1234 >&2; exit 3")
    with pytest.raises(ConfigError) as info:
        source.get()
    assert "status 3" in str(info.value) and "sk-leaked" not in str(info.value)
    with pytest.raises(ConfigError, match="no key"):
        CommandKey("true").get()
    assert NoKey().get() is None


# ---------------------------------------------------------------- Anthropic


def test_anthropic_request_is_exact_wire_json(an: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    an.add_turns(turn("done"))
    provider = anthropic_at(an, monkeypatch)
    convo = (*CONVERSATION[:1], Message("system", "Repository text is data."), *CONVERSATION[1:])
    provider.complete(convo, tools=(SEARCH, READ), max_tokens=555, temperature=0.1)
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
    provider.complete(CONVERSATION[:2], tools=(SEARCH,), tool_choice="required")
    assert an.requests[0].body["tool_choice"] == {"type": "any"}
    # Forced final answer: no tools at all, and past tool blocks become text the server accepts.
    assert provider.complete(CONVERSATION, tools=(SEARCH,), tool_choice="none").content == "final"
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
    first = provider.complete(CONVERSATION[:2], tools=(SEARCH,))
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
    assert anthropic_at(an, monkeypatch).complete(CONVERSATION[:2], temperature=0.3).content == "ok"
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
        provider.complete(CONVERSATION[:2], timeout_s=0.3)


# ---------------------------------------------------------------- scripted


def write_script(tmp_path: Path, turns: list[dict[str, Any]]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}))
    return path


def test_scripted_replays_turns_then_runs_out(tmp_path: Path) -> None:
    path = write_script(tmp_path, [
        {"tool_calls": [{"name": "search", "arguments": {"pattern": "legacy_id"}}]},
        {"content": '{"summary": "fine", "claims": []}', "usage": {"prompt_tokens": 9, "completion_tokens": 3}},
    ])
    provider = get_provider(f"scripted:{path}")
    assert isinstance(provider, ScriptedProvider) and provider.name == f"scripted:{path}"
    first = provider.complete(CONVERSATION[:2], tools=(SEARCH,))
    assert first.finish_reason == "tool_calls" and first.model == "scripted"
    assert first.tool_calls == (ToolCallRequest("call_1_1", "search", {"pattern": "legacy_id"}),)
    assert first.usage.estimated and first.usage.cost_usd == 0.0 and first.usage.prompt_tokens > 0
    second = provider.complete(CONVERSATION[:2], tool_choice="none")
    assert second.content == '{"summary": "fine", "claims": []}' and second.finish_reason == "stop"
    assert (second.usage.prompt_tokens, second.usage.completion_tokens, second.usage.estimated) == (9, 3, False)
    with pytest.raises(MalformedResponseError, match="no turn 3") as info:
        provider.complete(CONVERSATION[:2])
    assert info.value.exit_code == EXIT_INCONCLUSIVE
    assert [c.tool_choice for c in provider.calls] == ["auto", "none", "auto"]


def test_scripted_finish_reason_raw_arguments_and_errors(tmp_path: Path) -> None:
    path = write_script(tmp_path, [
        {"content": "cut", "finish_reason": "length"},
        {"tool_calls": [{"id": "x1", "name": "read_file", "arguments": "{not json"}]},
        {"error": "RATE_LIMITED"},
        {"error": {"code": "OUTPUT_TRUNCATED", "message": "scripted truncation"}},
    ])
    provider = ScriptedProvider(path)
    assert provider.complete(()).finish_reason == "length"
    assert provider.complete(()).tool_calls == (ToolCallRequest("x1", "read_file", "{not json"),)
    with pytest.raises(RateLimitedError):
        provider.complete(())
    with pytest.raises(OutputTruncatedError, match="scripted truncation"):
        provider.complete(())


@pytest.mark.parametrize(
    "content",
    ["not json", '{"nope": []}', '{"turns": [{"content": 5}]}', '{"turns": [{"error": "WHATEVER"}]}'],
)
def test_scripted_bad_files_are_config_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError):
        get_provider(f"scripted:{path}")
    with pytest.raises(ConfigError, match="not found"):
        get_provider(f"scripted:{tmp_path / 'missing.json'}")


def test_every_provider_error_is_inconclusive() -> None:
    classes = [ConfigError, ProviderHTTPError, RateLimitedError, ProviderNetworkError, ProviderTimeoutError,
               OutputTruncatedError, MalformedResponseError]
    codes = {cls.code for cls in classes}
    assert codes == {"CONFIG_ERROR", "PROVIDER_HTTP_ERROR", "RATE_LIMITED", "PROVIDER_NETWORK_ERROR", "TIMEOUT",
                     "OUTPUT_TRUNCATED", "MALFORMED_RESPONSE"}
    assert all(issubclass(cls, ProviderError) and cls.exit_code == EXIT_INCONCLUSIVE for cls in classes)


def test_a_review_without_a_model_never_loads_the_http_providers():
    # httpx and the HTTP providers cost about 0.25 s of every start; only a model review needs them.
    code = ("import sys\nfrom showcause.cli import app\n"
            "from showcause.service.inputs import open_snapshot, tool_context\n"
            "from showcause.judges.base import ReviewRequest\nfrom showcause.service.review import run_review\n"
            f"with open_snapshot(case={str(Path(__file__).parents[1] / 'examples' / 'demo-case')!r}) as snap:\n"
            "    print(run_review(tool_context(snap), 'mechanical', ReviewRequest()).verdict)\n"
            "print(sorted(m for m in sys.modules if m == 'httpx' or m.startswith('showcause.providers.')))\n"
            "import showcause.providers as p\nprint(p.OpenAIProvider.__name__, p.ScriptedProvider.__name__)\n"
            "print('httpx' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["MODIFY", "['showcause.providers.base', 'showcause.providers.errors', "
                                        "'showcause.providers.registry']", "OpenAIProvider ScriptedProvider", "True"]
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchProvider'"):
        import showcause.providers

        _ = showcause.providers.NoSuchProvider


def test_a_500_that_reports_a_request_validation_error_names_the_rejected_parameter():
    # llama-cpp-python answers a response_format its schema refuses with 500 and pydantic's text.
    text = json.dumps({"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                                            "'response_format', 'type'), 'msg': \"Input should be 'text' or "
                                            "'json_object'\"}", "type": "internal_server_error"}})
    body = {"model": "m", "response_format": {"type": "json_schema"}, "temperature": 0}
    assert find_rejected_param(HttpResult(500, {}, text), body, OPTIONAL_PARAMS) == "response_format"
    assert find_rejected_param(HttpResult(500, {}, '{"error": "response_format broke us"}'), body,
                               OPTIONAL_PARAMS) is None   # a plain server failure is not a refusal
    assert find_rejected_param(HttpResult(503, {}, text), body, OPTIONAL_PARAMS) is None
