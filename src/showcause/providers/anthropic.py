"""Anthropic Messages API: top-level `system`, `tool_use` / `tool_result` blocks, `x-api-key`."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from showcause.core import jsonsafe
from showcause.providers.base import (
    Message,
    ModelTurn,
    ProviderConfig,
    ProviderSpec,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
    build_usage,
    message_chars,
)
from showcause.providers.errors import MalformedResponseError, ProviderHTTPError
from showcause.providers.http import HttpClient, HttpResult, call_json, find_rejected_param, header_secrets, redact
from showcause.providers.keys import KeySource, key_source

__all__ = ["ANTHROPIC", "ANTHROPIC_BASE_URL", "ANTHROPIC_VERSION", "AnthropicProvider", "anthropic_provider"]

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
OPTIONAL_PARAMS = ("temperature", "top_p", "top_k", "tool_choice", "thinking", "metadata", "stop_sequences")
_STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}


def _tool_use_input(arguments: dict[str, Any] | str) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    try:
        value = jsonsafe.loads(arguments, max_bytes=jsonsafe.MAX_ARGS_BYTES)
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"raw_arguments": arguments}


def wire_messages(messages: Sequence[Message], *, with_tools: bool) -> tuple[str, list[dict[str, Any]]]:
    """(system, messages) in Anthropic's shape; consecutive same-role messages merge into one.

    Without tools in the request, past tool calls and results are rendered as text blocks, so a request
    never carries `tool_use`/`tool_result` blocks with no tool definitions.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in messages:
        if message.role == "system":
            if message.content:
                system.append(message.content)
        elif message.role == "tool":
            if with_tools:
                result = {"type": "tool_result", "tool_use_id": message.tool_call_id or "", "content": message.content}
                add("user", [result])
            else:
                label = f"[result of tool {message.name or ''} call {message.tool_call_id or ''}]"
                add("user", [{"type": "text", "text": f"{label}\n{message.content}"}])
        elif message.role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
            for call in message.tool_calls:
                if with_tools:
                    blocks.append(
                        {"type": "tool_use", "id": call.id, "name": call.name, "input": _tool_use_input(call.arguments)}
                    )
                else:
                    args = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
                    blocks.append({"type": "text", "text": f"[called tool {call.name} ({call.id}) with {args}]"})
            add("assistant", blocks)
        else:
            add("user", [{"type": "text", "text": message.content or "(empty)"}])
    # A single plain-text block is sent as a plain string, the most widely accepted form.
    for entry in out:
        blocks = entry["content"]
        if len(blocks) == 1 and blocks[0]["type"] == "text":
            entry["content"] = blocks[0]["text"]
    return "\n\n".join(system), out


class AnthropicProvider:
    """`POST {base_url}/v1/messages` with tools, retries, parameter fallbacks and usage."""

    def __init__(self, *, model: str, base_url: str, keys: KeySource, config: ProviderConfig, key_hint: str) -> None:
        self.name = f"anthropic:{model}"
        self.model = model
        base = base_url.strip().rstrip("/")
        self.base_url = base
        self.url = f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"
        self._keys = keys
        self._config = config
        self._key_hint = key_hint
        self._dropped: set[str] = set()
        self._http = HttpClient(
            label=self.name,
            max_retries=config.max_retries,
            backoff_base_s=config.backoff_base_s,
            backoff_max_s=config.backoff_max_s,
        )

    def __repr__(self) -> str:
        return f"AnthropicProvider(name={self.name!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        self._http.close()

    def _headers(self, key: str | None) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
            **self._config.extra_headers,
        }
        if key:
            headers["x-api-key"] = key
        return headers

    def build_body(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec],
        tool_choice: ToolChoice,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        """The exact JSON body of one request (no `tools` at all when tool_choice is "none")."""
        with_tools = bool(tools) and tool_choice != "none"
        system, wire = wire_messages(messages, with_tools=with_tools)
        body: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens}
        if system:
            body["system"] = system
        body["messages"] = wire
        if with_tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools
            ]
            body["tool_choice"] = {"type": "any" if tool_choice == "required" else "auto"}
        if temperature is not None:
            body["temperature"] = temperature
        for key in self._dropped:
            body.pop(key, None)
        return body

    def _adjust(self, body: dict[str, Any], param: str) -> set[str]:
        if param in OPTIONAL_PARAMS and param in body:
            body.pop(param)
            self._dropped.add(param)
            return {param}
        return set()

    def _rejected(self, result: HttpResult, body: dict[str, Any]) -> str | None:
        return find_rejected_param(result, body, OPTIONAL_PARAMS)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice = "auto",
        max_tokens: int = 8000,
        temperature: float | None = None,
        timeout_s: float = 120.0,
        response_schema: Mapping[str, Any] | None = None,
    ) -> ModelTurn:
        body = self.build_body(
            messages, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens, temperature=temperature
        )
        data = call_json(
            self._http,
            self.url,
            body,
            headers=self._headers,
            keys=self._keys,
            timeout_s=timeout_s,
            rejected=self._rejected,
            adjust=self._adjust,
            key_hint=self._key_hint,
            extra_secrets=header_secrets(self._config.extra_headers),
        )
        sent_tools = tools if "tools" in body else ()
        return self.parse_response(data, prompt_chars=message_chars(messages, sent_tools))

    def parse_response(self, data: Any, *, prompt_chars: int = 0) -> ModelTurn:
        """A ModelTurn from a Messages API body; MALFORMED_RESPONSE when the shape is wrong."""
        if not isinstance(data, dict):
            raise MalformedResponseError(f"{self.name}: response body is not a JSON object")
        if data.get("type") == "error":
            error: Any = data.get("error")
            detail = error.get("message", "") if isinstance(error, dict) else str(error)
            detail = redact(str(detail)[:400], self._keys.secrets())
            raise ProviderHTTPError(f"{self.name}: provider error in response body: {detail}")
        blocks: Any = data.get("content")
        if not isinstance(blocks, list):
            raise MalformedResponseError(f"{self.name}: response has no content array")
        texts: list[str] = []
        calls: list[ToolCallRequest] = []
        for block in blocks:
            if not isinstance(block, dict):
                raise MalformedResponseError(f"{self.name}: a content block is not an object")
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_use":
                name, call_id, raw_input = block.get("name"), block.get("id"), block.get("input")
                if not isinstance(name, str) or not isinstance(call_id, str):
                    raise MalformedResponseError(f"{self.name}: a tool_use block lacks its name or id")
                arguments: dict[str, Any] | str = (
                    raw_input if isinstance(raw_input, dict) else json.dumps(raw_input) if raw_input is not None else {}
                )
                calls.append(ToolCallRequest(id=call_id, name=name, arguments=arguments))
            # thinking / redacted_thinking / server tool blocks are not part of the answer
        content = "".join(texts)
        stop: Any = data.get("stop_reason")
        default_finish = "tool_calls" if calls else "stop"
        finish = _STOP_REASONS.get(stop, stop) if isinstance(stop, str) and stop else default_finish
        model: Any = data.get("model")
        model_name = model if isinstance(model, str) and model else self.model
        raw_usage: Any = data.get("usage")
        reported: dict[str, Any] | None = None
        if isinstance(raw_usage, dict):
            reported = dict(raw_usage)
            prompt = reported.get("input_tokens")
            if isinstance(prompt, int):  # cached prompt tokens are prompt tokens too
                extra = [reported.get(k) for k in ("cache_creation_input_tokens", "cache_read_input_tokens")]
                reported["input_tokens"] = prompt + sum(v for v in extra if isinstance(v, int))
        completion_chars = len(content) + sum(len(c.name) + len(json.dumps(c.arguments)) for c in calls)
        usage = build_usage(
            reported, model=model_name, prompt_chars=prompt_chars, completion_chars=completion_chars,
            prompt_key="input_tokens", completion_key="output_tokens",
        )
        return ModelTurn(content=content, tool_calls=tuple(calls), usage=usage, finish_reason=finish, model=model_name)


def anthropic_provider(model: str, base_url: str | None, config: ProviderConfig) -> AnthropicProvider:
    """`anthropic:MODEL` with ANTHROPIC_API_KEY (or the key command); ANTHROPIC_BASE_URL honoured."""
    env = config.api_key_env or "ANTHROPIC_API_KEY"
    keys = key_source(
        key_command=config.key_command, key_ttl_s=config.key_ttl_s, api_key_env=env, default_env=None, required=True
    )
    base = base_url or config.base_url or os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_BASE_URL
    return AnthropicProvider(model=model, base_url=base, keys=keys, config=config, key_hint=env)


ANTHROPIC = ProviderSpec(anthropic_provider)
