"""Loopback peers and arbiters for the quorum tests, in both wire formats.

A peer server answers every peer request with its `answer`; a request at temperature 0 is an arbiter
evaluation, answered by `arbiter(prompt_text)` (the text of the user message it was shown). `ratings_arbiter`
builds one from the public reply contract: it rates exactly the documents it was shown.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from llm_server_base import Recorded, ServerBase, turn
from llm_servers import AnthropicServer, OpenAIServer

__all__ = ["QuorumAnthropic", "QuorumOpenAI", "arbiter_posts", "config_for", "peer_posts", "ratings_arbiter",
           "user_text"]

_DOC = re.compile(r'<<<DOCUMENT \d+ source="([^"]+)">>>')


def user_text(body: Mapping[str, Any]) -> str:
    """The last user message of an OpenAI or Anthropic request body, as text."""
    content = body["messages"][-1]["content"]
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content)


def is_arbiter(body: Mapping[str, Any]) -> bool:
    return body.get("temperature") == 0


def ratings_arbiter(consensus: str, ratings: Mapping[str, float], caller: float | None = None
                    ) -> Callable[[str], str]:
    """An arbiter that rates each document it was shown (by its source name) from `ratings`."""
    def reply(text: str) -> str:
        shown = {name: ratings[name] for name in _DOC.findall(text) if name in ratings}
        if caller is not None and 'source="caller"' in text:
            shown["caller"] = caller
        return json.dumps({"consensus": consensus, "ratings": shown})
    return reply


class _Role:
    """What both wire formats share: a peer answer, or an arbiter reply at temperature 0."""

    answer: str
    arbiter: Callable[[str], str] | None
    tokens: tuple[int, int] | None   # None: the reply reports no usage at all

    def __post_init__(self) -> None:
        super().__post_init__()  # type: ignore[misc]
        self.turns, self.repeat_last = [turn("-")], True   # the turn is replaced per request by role_turn

    def role_turn(self, body: Mapping[str, Any]) -> dict[str, Any]:
        if self.tokens is None:
            text = self.arbiter(user_text(body)) if is_arbiter(body) and self.arbiter else self.answer
            return turn(text, usage=None)
        prompt, completion = self.tokens
        if is_arbiter(body):
            assert self.arbiter is not None, "an arbiter request reached a server that is no arbiter"
            return turn(self.arbiter(user_text(body)), usage={"prompt_tokens": prompt * 3, "completion_tokens": 20})
        return turn(self.answer, usage={"prompt_tokens": prompt, "completion_tokens": completion})

    def render(self, turn: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        return super().render(self.role_turn(body), body)  # type: ignore[misc]


@dataclass
class QuorumOpenAI(_Role, OpenAIServer):
    answer: str = "an answer"
    arbiter: Callable[[str], str] | None = None
    tokens: tuple[int, int] | None = (10, 5)


@dataclass
class QuorumAnthropic(_Role, AnthropicServer):
    """Also `POST /v1/messages/count_tokens`: `{"input_tokens": count_tokens}`."""

    answer: str = "an answer"
    arbiter: Callable[[str], str] | None = None
    tokens: tuple[int, int] | None = (10, 5)
    count_tokens: int = 42

    def handle(self, method: str, path: str, headers: dict[str, str], body: Any, raw: bytes
               ) -> tuple[int, dict[str, str], bytes] | None:
        if path.rstrip("/") != "/v1/messages/count_tokens":
            return super().handle(method, path, headers, body, raw)
        self.requests.append(Recorded(method, path, headers, body, raw, time.monotonic()))
        return self._json(200, {"input_tokens": self.count_tokens})


def peer_posts(server: ServerBase) -> list[Recorded]:
    return [r for r in server.posts() if not is_arbiter(r.body)]


def arbiter_posts(server: ServerBase) -> list[Recorded]:
    return [r for r in server.posts() if is_arbiter(r.body)]


@dataclass
class SourceSpec:
    name: str
    server: ServerBase
    weight: int
    tier: int
    extra: dict[str, Any] = field(default_factory=dict)


def config_for(specs: list[SourceSpec], thresholds: dict[str, int], arbiter: str, **top: Any) -> dict[str, Any]:
    """A predecessor-format configuration whose sources are the given loopback servers."""
    sources = []
    for spec in specs:
        anthropic = isinstance(spec.server, AnthropicServer)
        url = f"http://127.0.0.1:{spec.server.port}" + ("" if anthropic else "/v1")
        entry: dict[str, Any] = {"name": spec.name, "apiType": "anthropic" if anthropic else "openai",
                                 "baseUrl": url, "model": f"{spec.name}-model", "apiKeyEnv": "QUORUM_TEST_KEY",
                                 "weight": spec.weight, "tier": spec.tier, **spec.extra}
        if "apiKeyCommand" in spec.extra:
            entry.pop("apiKeyEnv")
        sources.append(entry)
    return {"thresholds": thresholds, "arbiter": arbiter, "sources": sources, **top}
