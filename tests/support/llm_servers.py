"""Loopback test servers that speak the real OpenAI and Anthropic wire formats.

Each server replays scripted turns, records every request (method, path, headers, JSON body, arrival time)
and injects faults per request. A turn is neutral and rendered in each API's shape:

    turn(content="…", tool_calls=[("search", {"pattern": "x"})], finish_reason="length", usage=None, cost=0.01)

Faults are queued and each consumes one request (`server.fail(rate_limited(0.2), times=2)`); persistent
behaviour is configured on the server (`reject_params`, `valid_keys`, `repeat_last`). The shared parts are
in llm_server_base.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from llm_server_base import (
    Fault,
    Recorded,
    ServerBase,
    close_connection,
    malformed,
    rate_limited,
    raw,
    reject_param,
    slow,
    status,
    turn,
)

__all__ = [
    "AnthropicServer",
    "Fault",
    "OpenAIServer",
    "Recorded",
    "close_connection",
    "malformed",
    "rate_limited",
    "raw",
    "reject_param",
    "slow",
    "status",
    "turn",
]


class OpenAIServer(ServerBase):
    """`POST /v1/chat/completions`, `GET /v1/models`; errors as `{"error": {message, type, param, code}}`."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def error_kind(self, code: int) -> str:
        return {401: "invalid_request_error", 429: "requests", 400: "invalid_request_error"}.get(code, "server_error")

    def error_body(self, code: int, kind: str, message: str, param: str | None = None) -> dict[str, Any]:
        codes = {401: "invalid_api_key", 429: "rate_limit_exceeded", 400: "unsupported_parameter" if param else None}
        return {"error": {"message": message, "type": kind, "param": param, "code": codes.get(code)}}

    def reject_message(self, param: str) -> str:
        if param == "max_tokens":
            return (
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead."
            )
        return super().reject_message(param)

    def key_of(self, headers: dict[str, str]) -> str | None:
        auth = headers.get("authorization", "")
        return auth[7:] if auth.startswith("Bearer ") else None

    def validate(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> str | None:
        if path.rstrip("/") != "/v1/chat/completions":
            return f"no route {path}"
        if not isinstance(body.get("model"), str) or not isinstance(body.get("messages"), list):
            return "you must provide a model parameter and a messages array"
        pending: set[str] = set()
        for n, message in enumerate(body["messages"]):
            role = message.get("role")
            if role == "tool":
                if message.get("tool_call_id") not in pending:
                    return f"Invalid parameter: messages[{n}] with role 'tool' must be a response to a preceding " \
                           "message with 'tool_calls'."
                pending.discard(message["tool_call_id"])
            elif role == "assistant":
                pending = {c["id"] for c in message.get("tool_calls") or []}
            elif role not in ("system", "user", "developer"):
                return f"Invalid value: '{role}' at messages[{n}].role"
        if "tool_choice" in body and "tools" not in body:
            return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
        return None

    def render(self, turn: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        n = next(self._ids)
        message: dict[str, Any] = {"role": "assistant", "content": turn["content"] or None, "refusal": None}
        if turn["tool_calls"]:
            message["tool_calls"] = [
                {
                    "id": f"call_{n}_{i}",
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": call["arguments"] if isinstance(call["arguments"], str)
                        else json.dumps(call["arguments"]),
                    },
                }
                for i, call in enumerate(turn["tool_calls"])
            ]
        data: dict[str, Any] = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": turn["model"] or body.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": turn["finish_reason"]}],
        }
        if turn["usage"] is not None:
            usage = dict(turn["usage"])
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            if turn["cost"] is not None:
                usage["cost"] = turn["cost"]
            data["usage"] = usage
        return data


class AnthropicServer(ServerBase):
    """`POST /v1/messages`; errors as `{"type": "error", "error": {type, message}}`."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def error_kind(self, code: int) -> str:
        return {
            400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
            429: "rate_limit_error", 529: "overloaded_error",
        }.get(code, "api_error")

    def error_body(self, code: int, kind: str, message: str, param: str | None = None) -> dict[str, Any]:
        return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_test"}

    def reject_message(self, param: str) -> str:
        return f"{param}: Extra inputs are not permitted"

    def key_of(self, headers: dict[str, str]) -> str | None:
        return headers.get("x-api-key")

    def validate(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> str | None:
        if path.rstrip("/") != "/v1/messages":
            return f"no route {path}"
        if headers.get("anthropic-version") != "2023-06-01":
            return "anthropic-version: header is required"
        if not isinstance(body.get("max_tokens"), int):
            return "max_tokens: Field required"
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "messages: Field required"
        has_tools = "tools" in body
        previous_uses: set[str] = set()
        for n, message in enumerate(messages):
            role, content = message.get("role"), message.get("content")
            if role not in ("user", "assistant"):
                return f'messages.{n}.role: Input should be \'user\' or \'assistant\' (got "{role}")'
            if content in ("", []):
                return f"messages.{n}: all messages must have non-empty content"
            blocks = content if isinstance(content, list) else []
            kinds = {b.get("type") for b in blocks}
            if kinds & {"tool_use", "tool_result"} and not has_tools:
                return "Requests which include `tool_use` or `tool_result` blocks must define tools."
            results = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
            if role == "user" and not results >= previous_uses:
                return f"messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after"
            if results - previous_uses:
                return f"messages.{n}: unexpected `tool_use_id` found in `tool_result` blocks"
            uses = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
            previous_uses = uses if role == "assistant" else set()
        if "tool_choice" in body and not has_tools:
            return "tool_choice: may only be specified while providing tools"
        return None

    def render(self, turn: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        n = next(self._ids)
        blocks: list[dict[str, Any]] = []
        if turn["content"]:
            blocks.append({"type": "text", "text": turn["content"]})
        for i, call in enumerate(turn["tool_calls"]):
            use = {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": call["name"], "input": call["arguments"]}
            blocks.append(use)
        stop = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}.get(
            turn["finish_reason"], turn["finish_reason"]
        )
        data: dict[str, Any] = {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": turn["model"] or body.get("model") or self.model,
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
        }
        if turn["usage"] is not None:
            data["usage"] = {
                "input_tokens": turn["usage"]["prompt_tokens"],
                "output_tokens": turn["usage"]["completion_tokens"],
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            }
        return data


def start_server(kind: type[ServerBase], turns: Sequence[dict[str, Any]] = (), **options: Any) -> ServerBase:
    """Start a fresh server on an ephemeral port."""
    return kind(turns=list(turns), **options).start()
