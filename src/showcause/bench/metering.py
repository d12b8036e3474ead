"""A provider wrapper the benchmark puts around every model a review makes: pacing and per-call metering.

The wrapper sits between a judge and its provider (`providers.registry.wrapping_providers`), so every
model call of an attempt is counted — including the calls of an attempt that later fails, whose usage the
review result no longer carries — and every call start goes through the shared `--max-rpm` limiter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from showcause.bench.costs import Meter
from showcause.bench.ratelimit import RateLimiter
from showcause.core.errors import ProviderError
from showcause.providers.base import (
    DEFAULT_OPTIONS,
    CompletionOptions,
    Message,
    ModelTurn,
    Provider,
    estimate_tokens,
    message_chars,
    send,
)

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

    def complete(self, messages: Sequence[Message], options: CompletionOptions = DEFAULT_OPTIONS) -> ModelTurn:
        if self._limiter is not None:
            self._limiter.wait()
        try:
            turn = send(self._inner, messages, options)
        except ProviderError as exc:
            sent = estimate_tokens(message_chars(messages, options.sent_tools))
            self._meter.add_failure(exc.code, exc.status, sent, options.max_tokens)
            raise
        self._meter.add(turn.usage)
        return turn
