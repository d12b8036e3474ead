"""What the loopback model servers share: recorded requests, faults, neutral turns, the HTTP handler and
the server base (the wire formats themselves are in llm_servers.py).

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
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = [
    "Fault",
    "Recorded",
    "ServerBase",
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
    app: ServerBase

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
class ServerBase:
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
