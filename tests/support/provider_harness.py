"""What the provider tests share: a fast retry config, a key, two tools, a conversation, providers at a server."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from llm_servers import AnthropicServer, OpenAIServer
from showcause.providers import Message, ProviderConfig, ToolCallRequest, ToolSpec, get_provider

__all__ = [
    "CONVERSATION",
    "ENV_VARS",
    "FAST",
    "READ",
    "SEARCH",
    "SECRET",
    "an",
    "anthropic_at",
    "clean_env",
    "clear_provider_env",
    "gaps",
    "oa",
    "openai_at",
]

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


def clear_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key, base URL or proxy of the machine reaches a test."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)


def openai_at(server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, model: str = "gpt-5-mini", **cfg: Any):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return get_provider(f"openai:{model}", base_url=server.url, config=replace(FAST, **cfg))


def anthropic_at(server: AnthropicServer, monkeypatch: pytest.MonkeyPatch, **cfg: Any):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return get_provider("anthropic:claude-sonnet-4-5", base_url=server.url, config=replace(FAST, **cfg))


def gaps(server: Any) -> list[float]:
    """Seconds between the requests a server received."""
    times = [r.at for r in server.requests]
    return [b - a for a, b in itertools.pairwise(times)]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_provider_env(monkeypatch)


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
