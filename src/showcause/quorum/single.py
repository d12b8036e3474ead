"""One source on its own: the default source, one question to it, a token count."""

from __future__ import annotations

import math
import queue
from collections.abc import Sequence
from typing import Any

from showcause.core.errors import InputError, MalformedResponseError, ProviderTimeoutError, ShowcauseError
from showcause.providers.http import HttpClient, call_json
from showcause.quorum.config import Source
from showcause.quorum.peers import Answer, Call, Peers, Turn, peer_messages

__all__ = ["count_tokens", "default_source", "query_one"]

MAX_COUNT_TEXT = 1_000_000


def default_source(peers: Peers, name: str | None) -> Source:
    """The named source, else the lowest tier's highest-weight source (config order breaks ties)."""
    if name is not None:
        source = peers.config.source(name)
        if source is None:
            raise InputError(f"source: {name!r} is not a configured source")
        return source
    return min(peers.config.sources, key=lambda s: (s.tier, -s.weight))


def query_one(peers: Peers, prompt: str, history: Sequence[Turn], name: str | None) -> dict[str, Any]:
    """Ask one source (no quorum, no arbiter); its per-source timeout is the only limit."""
    if not 1 <= len(prompt) <= 100_000:
        raise InputError("prompt: must be 1 to 100000 characters")
    source = default_source(peers, name)
    sink: queue.Queue[tuple[Call, Answer | ShowcauseError]] = queue.Queue()
    call = peers.start(source, peer_messages(prompt, history), peers.options(source, arbiter=False), sink)
    try:
        _, outcome = sink.get(timeout=source.timeout_s)
    except queue.Empty:
        call.abort()
        raise ProviderTimeoutError(f"{source.name}: no answer within {source.timeout_s:g}s") from None
    if not isinstance(outcome, Answer):
        raise outcome
    return {"response": outcome.text, "model": outcome.model, "source": source.name,
            "finishReason": outcome.finish_reason,
            "tokenUsage": {"prompt": outcome.prompt_tokens, "completion": outcome.completion_tokens,
                           "total": outcome.prompt_tokens + outcome.completion_tokens}}


def count_tokens(peers: Peers, text: str, name: str | None) -> dict[str, Any]:
    """Anthropic sources: the provider's count endpoint (`method: "api"`); others ceil(chars / 4)."""
    if not 1 <= len(text) <= MAX_COUNT_TEXT:
        raise InputError(f"text: must be 1 to {MAX_COUNT_TEXT} characters")
    source = default_source(peers, name)
    out: dict[str, Any] = {"model": source.model, "source": source.name}
    if source.api_type != "anthropic":
        return {"totalTokens": math.ceil(len(text) / 4), **out, "method": "estimate"}
    provider = peers.provider(source)
    keys = peers.keys(source)
    client = HttpClient(label=source.name, max_retries=2)
    try:
        data: Any = call_json(client, f"{provider.url}/count_tokens",
                              {"model": source.model, "messages": [{"role": "user", "content": text}]},
                              headers=provider.headers, keys=keys, timeout_s=source.timeout_s,
                              rejected=lambda _result, _body: None, adjust=lambda _body, _param: set())
    finally:
        client.close()
        provider.close()
    tokens = data.get("input_tokens") if isinstance(data, dict) else None
    if not isinstance(tokens, int) or isinstance(tokens, bool):
        raise MalformedResponseError(f"{source.name}: the count endpoint returned no input_tokens")
    return {"totalTokens": tokens, **out, "method": "api"}
