"""A provider wrapper the benchmark puts around every model a review makes: pacing and per-call metering.

The wrapper sits between a judge and its provider (`providers.registry.wrapping_providers`), so every
model call of an attempt is counted — including the calls of an attempt that later fails, whose usage the
review result no longer carries — and every call start goes through the shared `--max-rpm` limiter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from showcause.bench.costs import Meter
from showcause.bench.ratelimit import RateLimiter
from showcause.providers.base import (
    Message,
    ModelTurn,
    Provider,
    ToolChoice,
    ToolSpec,
    estimate_tokens,
    message_chars,
    schema_kwargs,
)
from showcause.providers.errors import ProviderError

__all__ = ["MeteredProvider"]


class MeteredProvider:
    """Delegates to `inner`; waits for the limiter before each call and meters what each call used."""

    def __init__(self, inner: Provider, meter: Meter, limiter: RateLimiter | None = None) -> None:
        self._inner = inner
        self._meter = meter
        self._limiter = limiter
        self.name = inner.name

    def __repr__(self) -> str:
        return f"MeteredProvider({self._inner!r})"

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)

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
        if self._limiter is not None:
            self._limiter.wait()
        try:
            turn = self._inner.complete(messages, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens,
                                        temperature=temperature, timeout_s=timeout_s,
                                        **schema_kwargs(self._inner, response_schema))
        except ProviderError as exc:
            sent = tools if tool_choice != "none" else ()
            self._meter.add_failure(exc.code, exc.status, estimate_tokens(message_chars(messages, sent)), max_tokens)
            raise
        self._meter.add(turn.usage)
        return turn
