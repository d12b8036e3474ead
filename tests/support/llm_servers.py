"""Loopback test servers that speak the real OpenAI and Anthropic wire formats.

Each server replays scripted turns, records every request (method, path, headers, JSON body, arrival time)
and injects faults per request. A turn is neutral and rendered in each API's shape:

    turn(content="…", tool_calls=[("search", {"pattern": "x"})], finish_reason="length", usage=None, cost=0.01)

Faults are queued and each consumes one request (`server.fail(rate_limited(0.2), times=2)`); persistent
behaviour is configured on the server (`reject_params`, `valid_keys`, `repeat_last`).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

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


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]   # lower-cased names
    body: Any                 # parsed JSON, or None
    raw: bytes
    at: float                 # time.monotonic() on arrival


@dataclass(frozen=True)
class Fault:
    kind: str                 # status | slow | malformed | raw | reject_param | close
    status: int = 500
    retry_after: str | None = None
    delay_s: float = 0.0
    param: str | None = None
    echo_headers: bool = False
    payload: bytes = b""


def status(code: int, *, retry_after: float | str | None = None, echo_headers: bool = False) -> Fault:
    """An error status in the API's shape; `echo_headers` puts every request header in the message."""
    after = None if retry_after is None else str(retry_after)
    return Fault("status", status=code, retry_after=after, echo_headers=echo_headers)


def rate_limited(retry_after: float | str | None = None) -> Fault:
    return status(429, retry_after=retry_after)


def slow(delay_s: float) -> Fault:
    """Answer normally, but only after `delay_s` seconds."""
    return Fault("slow", delay_s=delay_s)


def malformed() -> Fault:
    return Fault("malformed", status=200)


def raw(payload: bytes, code: int = 200) -> Fault:
    """Answer with `payload` as the body, byte for byte (for bodies no JSON encoder would write)."""
    return Fault("raw", status=code, payload=payload)


def reject_param(name: str) -> Fault:
    """One 400 naming `name`, whether or not the request carried it."""
    return Fault("reject_param", status=400, param=name)


def close_connection() -> Fault:
    """Close the connection without any response."""
    return Fault("close")


def turn(
    content: str = "",
    tool_calls: Iterable[tuple[str, dict[str, Any] | str]] = (),
    *,
    finish_reason: str | None = None,
    usage: dict[str, int] | bool | None = True,
    cost: float | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """A neutral assistant turn. `usage=True` sends default token counts, `None` sends no usage at all.

    A tool call's arguments may be a string: it is sent verbatim (OpenAI), so it can be invalid JSON.
    """
    calls = [{"name": name, "arguments": args} for name, args in tool_calls]
    return {
        "content": content,
        "tool_calls": calls,
        "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
        "usage": {"prompt_tokens": 11, "completion_tokens": 7} if usage is True else usage or None,
        "cost": cost,
        "model": model,
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    app: _ServerBase

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        reply = self.app.handle(method, self.path, headers, body, raw)
        if reply is None:
            self.close_connection = True
            return
        code, extra, payload = reply
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_POST(self) -> None:
        self._serve("POST")

    def do_GET(self) -> None:
        self._serve("GET")


@dataclass
class _ServerBase:
    turns: list[dict[str, Any]] = field(default_factory=list)
    model: str = "test-model"
    repeat_last: bool = False                 # a model that never stops: the last turn forever
    valid_keys: set[str] | None = None        # None: any key accepted
    reject_params: set[str] = field(default_factory=set)
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._next = 0
        self._ids = itertools.count(1)
        self._stop = threading.Event()
        handler = type("Handler", (_Handler,), {"app": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    # -- scripting -------------------------------------------------------------------------------------
    def add_turns(self, *turns: dict[str, Any]) -> None:
        with self._lock:
            self.turns.extend(turns)

    def fail(self, fault: Fault, times: int = 1) -> None:
        with self._lock:
            self._faults.extend([fault] * times)

    def posts(self) -> list[Recorded]:
        return [r for r in self.requests if r.method == "POST"]

    # -- protocol hooks --------------------------------------------------------------------------------
    def error_body(self, code: int, kind: str, message: str, param: str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def error_kind(self, code: int) -> str:
        raise NotImplementedError

    def key_of(self, headers: dict[str, str]) -> str | None:
        raise NotImplementedError

    def validate(self, path: str, headers: dict[str, str], body: Any) -> str | None:
        raise NotImplementedError

    def render(self, turn: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "t"}]}

    def reject_message(self, param: str) -> str:
        return f"Unsupported parameter: '{param}' is not supported with this model."

    # -- dispatch --------------------------------------------------------------------------------------
    def _json(self, code: int, data: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        return code, headers or {}, json.dumps(data).encode()

    def _error(self, code: int, message: str, param: str | None = None, headers: dict[str, str] | None = None):
        return self._json(code, self.error_body(code, self.error_kind(code), message, param), headers)

    def handle(
        self, method: str, path: str, headers: dict[str, str], body: Any, raw: bytes
    ) -> tuple[int, dict[str, str], bytes] | None:
        with self._lock:
            self.requests.append(Recorded(method, path, headers, body, raw, time.monotonic()))
            fault = self._faults.popleft() if self._faults else None
        if fault is not None:
            if fault.kind == "close":
                return None
            if fault.kind == "status":
                extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                message = f"injected HTTP {fault.status}"
                if fault.echo_headers:
                    message += f"; request headers: {json.dumps(headers)}"
                return self._error(fault.status, message, headers=extra)
            if fault.kind == "malformed":
                return 200, {}, b'{"id": "x", "choices": [{"message": '
            if fault.kind == "raw":
                return fault.status, {}, fault.payload
            if fault.kind == "reject_param":
                return self._error(400, self.reject_message(fault.param or ""), fault.param)
            if fault.kind == "slow":
                self._stop.wait(fault.delay_s)
        key = self.key_of(headers)
        if self.valid_keys is not None and key not in self.valid_keys:
            # Deliberately echoes the whole key: the client must redact it.
            return self._error(401, f"Incorrect API key provided: {key}")
        if method == "GET":
            if path.rstrip("/").endswith("/models"):
                return self._json(200, self.models())
            return self._error(404, f"no route {path}")
        if not isinstance(body, dict):
            return self._error(400, "We could not parse the JSON body of your request.")
        problem = self.validate(path, headers, body)
        if problem is not None:
            return self._error(404 if problem.startswith("no route") else 400, problem)
        for param in sorted(self.reject_params):
            if param in body:
                return self._error(400, self.reject_message(param), param)
        with self._lock:
            if self._next < len(self.turns):
                current = self.turns[self._next]
                self._next += 1
            elif self.repeat_last and self.turns:
                current = self.turns[-1]
            else:
                current = None
        if current is None:
            return self._error(400, "test server: no scripted turn left")
        return self._json(200, self.render(current, body))


class OpenAIServer(_ServerBase):
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


class AnthropicServer(_ServerBase):
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


def start_server(kind: type[_ServerBase], turns: Sequence[dict[str, Any]] = (), **options: Any) -> _ServerBase:
    """Start a fresh server on an ephemeral port."""
    return kind(turns=list(turns), **options).start()
