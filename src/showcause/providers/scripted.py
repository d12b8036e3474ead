"""`scripted:FILE`: replays a fixed conversation, one assistant message per call, with no model at all."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from showcause.core import errors, jsonsafe
from showcause.providers.base import (
    CompletionOptions,
    Message,
    ProviderConfig,
    ProviderSpec,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
    Usage,
)
from showcause.providers.chat import ChatProvider, Reply

__all__ = ["SCRIPTED", "ScriptedCall", "ScriptedProvider", "load_script", "scripted_provider"]

_ERRORS: dict[str, type[errors.ProviderError]] = {
    cls.code: cls
    for cls in (
        errors.ConfigError,
        errors.ProviderHTTPError,
        errors.RateLimitedError,
        errors.ProviderNetworkError,
        errors.ProviderTimeoutError,
        errors.OutputTruncatedError,
        errors.MalformedResponseError,
    )
}


@dataclass(frozen=True)
class ScriptedCall:
    """What the harness sent on one call, kept for assertions."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tool_choice: ToolChoice
    max_tokens: int


@dataclass(frozen=True)
class _Turn:
    reply: Reply | None = None             # None for an injected error
    error: tuple[str, str] | None = None   # (code, message)


def _bad(path: str, where: str, why: str) -> errors.ConfigError:
    return errors.ConfigError(f"scripted file {path}: {where}: {why}")


def _parse_turn(path: str, index: int, raw: Any) -> _Turn:
    where = f"turn {index + 1}"
    if not isinstance(raw, dict):
        raise _bad(path, where, "must be an object")
    if "error" in raw:  # an injected failure: {"error": "RATE_LIMITED"} or {"error": {"code": …, "message": …}}
        err: Any = raw["error"]
        code = err.get("code") if isinstance(err, dict) else err
        if code not in _ERRORS:
            raise _bad(path, where, f"unknown error code {code!r} (known: {', '.join(sorted(_ERRORS))})")
        message = err.get("message") if isinstance(err, dict) else None
        return _Turn(error=(code, str(message or f"scripted {code}")))
    content = raw.get("content", "")
    if not isinstance(content, str):
        raise _bad(path, where, "content must be a string")
    calls: list[ToolCallRequest] = []
    raw_calls: Any = raw.get("tool_calls", [])
    if not isinstance(raw_calls, list):
        raise _bad(path, where, "tool_calls must be a list")
    for n, call in enumerate(raw_calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise _bad(path, where, f"tool call {n + 1} needs a string name")
        arguments: Any = call.get("arguments", {})
        if not isinstance(arguments, dict | str):
            raise _bad(path, where, f"tool call {n + 1}: arguments must be an object or a string")
        call_id: Any = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = f"call_{index + 1}_{n + 1}"
        calls.append(ToolCallRequest(id=call_id, name=call["name"], arguments=arguments))
    finish = raw.get("finish_reason") or ("tool_calls" if calls else "stop")
    if not isinstance(finish, str):
        raise _bad(path, where, "finish_reason must be a string")
    usage_raw: Any = raw.get("usage")
    if usage_raw is not None and not isinstance(usage_raw, dict):
        raise _bad(path, where, "usage must be an object")
    usage: Usage | None = None
    if usage_raw is not None:
        try:
            cost = usage_raw.get("cost_usd", usage_raw.get("cost", 0.0))
            usage = Usage(
                prompt_tokens=int(usage_raw.get("prompt_tokens", 0)),
                completion_tokens=int(usage_raw.get("completion_tokens", 0)),
                cost_usd=None if cost is None else float(cost),
                estimated=bool(usage_raw.get("estimated", False)),
            )
        except (TypeError, ValueError):
            raise _bad(path, where, "usage values must be numbers") from None
    model: Any = raw.get("model")
    return _Turn(Reply(content, tuple(calls), finish, model if isinstance(model, str) else None, usage))


def load_script(path: str | Path) -> list[_Turn]:
    """Parse and check a scripted conversation file; any problem is a CONFIG_ERROR naming the turn."""
    shown = str(path)
    try:
        data: Any = jsonsafe.load_file(Path(path), max_bytes=jsonsafe.MAX_SCRIPT_BYTES)
    except FileNotFoundError:
        raise errors.ConfigError(f"scripted file not found: {shown}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise errors.ConfigError(f"scripted file {shown} is unreadable: {exc}") from None
    except jsonsafe.ParseLimitError as exc:
        raise errors.ConfigError(f"scripted file {shown} refused: {exc.msg}") from None
    except ValueError as exc:
        raise errors.ConfigError(f"scripted file {shown} is not valid JSON: {exc}") from None
    turns: Any = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(turns, list):
        raise errors.ConfigError(f'scripted file {shown}: expected {{"turns": [...]}}')
    return [_parse_turn(shown, i, turn) for i, turn in enumerate(turns)]


class ScriptedProvider(ChatProvider):
    """Returns the scripted turns in order, whatever it is sent; running out is MALFORMED_RESPONSE.

    A turn without `usage` reports tokens estimated from the text (flagged `estimated`) and zero cost.
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(name=f"scripted:{path}", model="scripted", free=True)
        self.path = str(path)
        self._turns = load_script(path)
        self._lock = threading.Lock()
        self._next = 0
        self.calls: list[ScriptedCall] = []

    def __repr__(self) -> str:
        return f"ScriptedProvider(path={self.path!r}, turns={len(self._turns)}, used={self._next})"

    @property
    def remaining(self) -> int:
        return len(self._turns) - self._next

    def answer(self, messages: Sequence[Message], options: CompletionOptions) -> Reply:
        with self._lock:
            self.calls.append(ScriptedCall(tuple(messages), options.tools, options.tool_choice, options.max_tokens))
            if self._next >= len(self._turns):
                raise errors.MalformedResponseError(
                    f"{self.name}: the script has no turn {self._next + 1} (it has {len(self._turns)})"
                )
            turn = self._turns[self._next]
            self._next += 1
        if turn.error is not None:
            code, message = turn.error
            raise _ERRORS[code](message)
        assert turn.reply is not None
        return turn.reply


def scripted_provider(model: str, base_url: str | None, config: ProviderConfig) -> ScriptedProvider:
    """The `scripted:FILE` factory: the model name is the script's path; no server, no configuration."""
    return ScriptedProvider(model)


SCRIPTED = ProviderSpec(scripted_provider, free=True)
