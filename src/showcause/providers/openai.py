"""OpenAI-compatible chat/completions (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM, …)."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

from showcause.core import jsonsafe
from showcause.core.errors import MalformedResponseError, ProviderHTTPError
from showcause.providers.api import ApiProvider, error_message
from showcause.providers.base import CompletionOptions, Message, ProviderConfig, ProviderSpec, ToolCallRequest, ToolSpec
from showcause.providers.chat import Reply
from showcause.providers.keys import KeySource, key_source

__all__ = [
    "OLLAMA",
    "OLLAMA_BASE_URL",
    "OPENAI",
    "OPENAI_BASE_URL",
    "OPENROUTER",
    "OPENROUTER_BASE_URL",
    "OpenAIProvider",
    "normalize_base_url",
    "ollama_provider",
    "openai_provider",
    "openrouter_provider",
    "parse_arguments",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"
TokenParam = Literal["max_tokens", "max_completion_tokens"]
_TOKEN_PARAMS: tuple[TokenParam, TokenParam] = ("max_tokens", "max_completion_tokens")
# Parameters a server may reject and that we can do without (the token cap is swapped, never dropped).
OPTIONAL_PARAMS = (
    "max_tokens", "max_completion_tokens", "temperature", "reasoning_effort", "reasoning",
    "response_format", "tool_choice", "parallel_tool_calls", "top_p", "seed", "usage",
)


def normalize_base_url(url: str) -> str:
    """Strip trailing slashes; a bare `http://host:port` gets the conventional `/v1`."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    return url + "/v1" if urlsplit(url).path in ("", "/") else url


def parse_arguments(raw: Any) -> dict[str, Any] | str:
    """Tool-call arguments as a dict; the raw string when they are not a JSON object."""
    if isinstance(raw, dict):
        return dict(raw)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        value = jsonsafe.loads(text, max_bytes=jsonsafe.MAX_ARGS_BYTES)
    except ValueError:   # not JSON, too large or too deep: the ledger refuses the raw text and says why
        return text
    return value if isinstance(value, dict) else text


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts: list[str] = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return ""


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            # A string even when empty: llama-cpp-python's server refuses null content (HTTP 500).
            "content": message.content,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments),
                    },
                }
                for call in message.tool_calls
            ],
        }
    return {"role": message.role, "content": message.content}


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.input_schema},
    }


class OpenAIProvider(ApiProvider):
    """`POST {base_url}/chat/completions`: OpenAI's wire format, its token parameters and response formats."""

    OPTIONAL_PARAMS = OPTIONAL_PARAMS

    def __init__(
        self,
        *,
        prefix: str,
        model: str,
        base_url: str,
        keys: KeySource,
        config: ProviderConfig,
        token_param: TokenParam = "max_tokens",
        reasoning_style: Literal["reasoning_effort", "reasoning"] = "reasoning_effort",
        free: bool = False,
        extra_body: dict[str, Any] | None = None,
        key_hint: str = "",
    ) -> None:
        base = normalize_base_url(base_url)
        super().__init__(name=f"{prefix}:{model}", model=model, base_url=base, url=f"{base}/chat/completions",
                         keys=keys, config=config, key_hint=key_hint, free=free)
        self._token_param: TokenParam = token_param
        self._reasoning_style = reasoning_style
        self._extra_body = dict(extra_body or {})
        self._schema_format = "json_schema"  # how a response schema is sent; "json_object" after a refusal
        self._ids = itertools.count(1)

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}

    def wire_body(self, messages: Sequence[Message], options: CompletionOptions) -> dict[str, Any]:
        """Tools are left out entirely when tool_choice is "none"; a response schema is sent only without
        tools, as `response_format`, which servers with grammars such as llama.cpp enforce token by token."""
        body: dict[str, Any] = {"model": self.model, "messages": [_wire_message(m) for m in messages]}
        if options.sent_tools:
            body["tools"] = [_wire_tool(t) for t in options.sent_tools]
            body["tool_choice"] = options.tool_choice
        elif options.response_schema is not None:
            schema = dict(options.response_schema)
            body["response_format"] = (
                {"type": "json_object", "schema": schema} if self._schema_format == "json_object"
                else {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}})
        body[self._token_param] = options.max_tokens
        if options.temperature is not None:
            body["temperature"] = options.temperature
        effort = self._config.reasoning_effort
        if effort:
            if self._reasoning_style == "reasoning":
                body["reasoning"] = {"effort": effort}
            else:
                body["reasoning_effort"] = effort
        for key, value in self._extra_body.items():
            body.setdefault(key, value)
        return body

    def adjust(self, body: dict[str, Any], param: str) -> set[str]:
        if param in _TOKEN_PARAMS:
            other: TokenParam = "max_completion_tokens" if param == "max_tokens" else "max_tokens"
            body[other] = body.pop(param)
            self._token_param = other
            return set(_TOKEN_PARAMS)
        if param == "response_format" and body.get("response_format", {}).get("type") == "json_schema":
            # OpenAI's form refused: llama-cpp-python takes the schema inside a json_object format instead.
            schema = body["response_format"]["json_schema"]["schema"]
            body["response_format"] = {"type": "json_object", "schema": schema}
            self._schema_format = "json_object"
            return {"response_format:json_schema"}
        return super().adjust(body, param)

    def body_error(self, data: dict[str, Any]) -> str | None:
        error: Any = data.get("error")
        # OpenRouter and others report some failures inside a 200
        return error_message(error) if error and not data.get("choices") else None

    def read(self, data: dict[str, Any]) -> Reply:
        choices: Any = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise MalformedResponseError(f"{self.name}: response has no choices")
        choice: dict[str, Any] = choices[0]
        message: Any = choice.get("message")
        if not isinstance(message, dict):
            raise MalformedResponseError(f"{self.name}: first choice has no message")
        calls = self._tool_calls(message)
        finish: Any = choice.get("finish_reason")
        if finish == "function_call":
            finish = "tool_calls"
        if not isinstance(finish, str) or not finish:
            finish = "tool_calls" if calls else "stop"
        model: Any = data.get("model")
        usage: Any = data.get("usage")
        return Reply(_text(message.get("content")), calls, finish, model if isinstance(model, str) else None,
                     usage if isinstance(usage, dict) else None)

    def _tool_calls(self, message: dict[str, Any]) -> tuple[ToolCallRequest, ...]:
        raw: Any = message.get("tool_calls")
        if not raw and isinstance(message.get("function_call"), dict):  # legacy single function call
            raw = [{"function": message["function_call"]}]
        if not isinstance(raw, list):
            return ()
        calls: list[ToolCallRequest] = []
        for item in raw:
            if not isinstance(item, dict):
                raise MalformedResponseError(f"{self.name}: a tool call is not an object")
            function: Any = item.get("function")
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise MalformedResponseError(f"{self.name}: a tool call has no function name")
            call_id: Any = item.get("id")
            calls.append(
                ToolCallRequest(
                    id=call_id if isinstance(call_id, str) and call_id else f"call_{next(self._ids)}",
                    name=function["name"],
                    arguments=parse_arguments(function.get("arguments")),
                )
            )
        return tuple(calls)

    def list_models(self, *, timeout_s: float = 30.0) -> list[str]:
        """Model ids from `GET {base_url}/models`."""
        result = self._http.request("GET", f"{self.base_url}/models", headers=self.headers(self._keys.get()),
                                    timeout_s=timeout_s, secrets=self.secrets())
        if result.status != 200:
            raise ProviderHTTPError(f"{self.name}: HTTP {result.status} listing models", status=result.status)
        data: Any = result.json()
        items: Any = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise MalformedResponseError(f"{self.name}: model list has no data array")
        return [m["id"] for m in items if isinstance(m, dict) and isinstance(m.get("id"), str)]


def _config_base(base_url: str | None, config: ProviderConfig, env: str) -> str | None:
    return base_url or config.base_url or os.environ.get(env) or None


def openai_provider(model: str, base_url: str | None, config: ProviderConfig) -> OpenAIProvider:
    """`openai:MODEL`; a custom base URL (argument, config, OPENAI_BASE_URL) makes the key optional."""
    custom = _config_base(base_url, config, "OPENAI_BASE_URL")
    official = custom is None or normalize_base_url(custom) == OPENAI_BASE_URL
    env = config.api_key_env or "OPENAI_API_KEY"
    keys = key_source(
        key_command=config.key_command, key_ttl_s=config.key_ttl_s, api_key_env=env, default_env=None,
        required=official or config.api_key_env is not None,
    )
    return OpenAIProvider(
        prefix="openai", model=model, base_url=custom or OPENAI_BASE_URL, keys=keys, config=config,
        token_param="max_completion_tokens" if official else "max_tokens", key_hint=env,
    )


def openrouter_provider(model: str, base_url: str | None, config: ProviderConfig) -> OpenAIProvider:
    """`openrouter:VENDOR/MODEL` with OPENROUTER_API_KEY; cost comes back in `usage.cost`."""
    env = config.api_key_env or "OPENROUTER_API_KEY"
    keys = key_source(
        key_command=config.key_command, key_ttl_s=config.key_ttl_s, api_key_env=env, default_env=None, required=True
    )
    return OpenAIProvider(
        prefix="openrouter", model=model, base_url=_config_base(base_url, config, "OPENROUTER_BASE_URL")
        or OPENROUTER_BASE_URL, keys=keys, config=config, reasoning_style="reasoning",
        extra_body={"usage": {"include": True}}, key_hint=env,
    )


def ollama_provider(model: str, base_url: str | None, config: ProviderConfig) -> OpenAIProvider:
    """`ollama:MODEL` on the local Ollama server (OLLAMA_HOST honoured); no key needed, no cost."""
    keys = key_source(
        key_command=config.key_command, key_ttl_s=config.key_ttl_s, api_key_env=config.api_key_env,
        default_env=None, required=config.api_key_env is not None,
    )
    return OpenAIProvider(
        prefix="ollama", model=model, base_url=_config_base(base_url, config, "OLLAMA_HOST") or OLLAMA_BASE_URL,
        keys=keys, config=config, free=True, key_hint=config.api_key_env or "",
    )


OPENAI = ProviderSpec(openai_provider)
OPENROUTER = ProviderSpec(openrouter_provider)
OLLAMA = ProviderSpec(ollama_provider, free=True)
