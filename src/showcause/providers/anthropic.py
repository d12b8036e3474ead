"""Anthropic Messages API: top-level `system`, `tool_use` / `tool_result` blocks, `x-api-key`."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from showcause.core import jsonsafe
from showcause.core.errors import MalformedResponseError
from showcause.providers.api import ApiProvider, error_message
from showcause.providers.base import CompletionOptions, Message, ProviderConfig, ProviderSpec, ToolCallRequest
from showcause.providers.chat import Reply
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


class AnthropicProvider(ApiProvider):
    """`POST {base_url}/v1/messages`: Anthropic's wire format, `x-api-key` and its usage counts."""

    OPTIONAL_PARAMS = OPTIONAL_PARAMS
    prompt_key = "input_tokens"
    completion_key = "output_tokens"

    def __init__(self, *, model: str, base_url: str, keys: KeySource, config: ProviderConfig, key_hint: str) -> None:
        base = base_url.strip().rstrip("/")
        super().__init__(name=f"anthropic:{model}", model=model, base_url=base,
                         url=f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages", keys=keys,
                         config=config, key_hint=key_hint)

    def wire_headers(self) -> dict[str, str]:
        return {"anthropic-version": ANTHROPIC_VERSION}

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key}

    def wire_body(self, messages: Sequence[Message], options: CompletionOptions) -> dict[str, Any]:
        """No `tools` at all when tool_choice is "none"; a response schema is not sent (no such parameter)."""
        tools = options.sent_tools
        system, wire = wire_messages(messages, with_tools=bool(tools))
        body: dict[str, Any] = {"model": self.model, "max_tokens": options.max_tokens}
        if system:
            body["system"] = system
        body["messages"] = wire
        if tools:
            body["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
                             for t in tools]
            body["tool_choice"] = {"type": "any" if options.tool_choice == "required" else "auto"}
        if options.temperature is not None:
            body["temperature"] = options.temperature
        return body

    def body_error(self, data: dict[str, Any]) -> str | None:
        return error_message(data.get("error")) if data.get("type") == "error" else None

    def read(self, data: dict[str, Any]) -> Reply:
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
        stop: Any = data.get("stop_reason")
        default_finish = "tool_calls" if calls else "stop"
        finish = _STOP_REASONS.get(stop, stop) if isinstance(stop, str) and stop else default_finish
        model: Any = data.get("model")
        return Reply("".join(texts), tuple(calls), finish, model if isinstance(model, str) else None,
                     _reported_usage(data.get("usage")))


def _reported_usage(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        return None
    reported = dict(raw)
    prompt = reported.get("input_tokens")
    if isinstance(prompt, int):  # cached prompt tokens are prompt tokens too
        extra = [reported.get(k) for k in ("cache_creation_input_tokens", "cache_read_input_tokens")]
        reported["input_tokens"] = prompt + sum(v for v in extra if isinstance(v, int))
    return reported


def anthropic_provider(model: str, base_url: str | None, config: ProviderConfig) -> AnthropicProvider:
    """`anthropic:MODEL` with ANTHROPIC_API_KEY (or the key command); ANTHROPIC_BASE_URL honoured."""
    env = config.api_key_env or "ANTHROPIC_API_KEY"
    keys = key_source(
        key_command=config.key_command, key_ttl_s=config.key_ttl_s, api_key_env=env, default_env=None, required=True
    )
    base = base_url or config.base_url or os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_BASE_URL
    return AnthropicProvider(model=model, base_url=base, keys=keys, config=config, key_hint=env)


ANTHROPIC = ProviderSpec(anthropic_provider)
