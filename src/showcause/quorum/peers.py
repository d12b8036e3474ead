"""Calling one configured source: its key, its wire client, and a call another thread can abort.

Each call gets a fresh wire client, so aborting it (quorum reached, deadline passed) shuts only its own
sockets. Key commands are minted once and cached for the configured TTL across calls (re-minted once on
a 401); an environment key is read again on every call, as the predecessor did.
"""

from __future__ import annotations

import contextvars
import os
import queue
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from showcause.core.errors import ConfigError, MalformedResponseError, PeerAborted, ProviderError, ShowcauseError
from showcause.providers.abort import AbortableHttpClient, make_abortable
from showcause.providers.anthropic import AnthropicProvider
from showcause.providers.api import ApiProvider
from showcause.providers.base import CompletionOptions, Message, ProviderConfig, Usage, message_chars
from showcause.providers.keys import CommandKey, EnvKey, KeySource
from showcause.providers.openai import OPENAI_BASE_URL, OpenAIProvider, normalize_base_url
from showcause.quorum.config import QuorumConfig, Source

__all__ = ["Answer", "Call", "Peers", "Turn"]

_THINK = re.compile(r"<(think|thinking)>.*?(</\1>|\Z)", re.DOTALL | re.IGNORECASE)
# 429/5xx are retried twice (three attempts), as the predecessor did; the source's timeout bounds them all.
_PEER_CONFIG = ProviderConfig(max_retries=2, backoff_base_s=0.5, backoff_max_s=30.0)


@dataclass(frozen=True)
class Turn:
    """One turn of the caller's history: `role` is "user" or "model" (the predecessor's names)."""

    role: str
    content: str


@dataclass(frozen=True)
class Answer:
    text: str
    usage: Usage                # settled: estimated where the reply was silent, with the cost
    finish_reason: str
    model: str
    prompt_tokens: int = 0      # as the reply reported them (0 when it did not), as the predecessor counted
    completion_tokens: int = 0


def _reported(usage: Any, key: str) -> int:
    value = usage.get(key) if isinstance(usage, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def peer_messages(prompt: str, history: Sequence[Turn]) -> list[Message]:
    """The history (model turns as the assistant's) and then the prompt: no system prompt for a peer."""
    turns = [Message(role="assistant" if t.role == "model" else "user", content=t.content) for t in history]
    return [*turns, Message(role="user", content=prompt)]


class Peers:
    """The sources of one configuration, and the key sources that outlive a single call."""

    def __init__(self, config: QuorumConfig, env: Mapping[str, str] | None = None) -> None:
        self.config = config
        self._env = env
        self._commands: dict[str, CommandKey] = {}
        self._lock = threading.Lock()

    def available(self, source: Source) -> bool:
        """Whether the credential can be resolved without a request: a set key variable, or a key command
        (not run here: running it is what a call does)."""
        if source.api_key_env is None:
            return True
        env = os.environ if self._env is None else self._env
        return bool(env.get(source.api_key_env, "").strip())

    def keys(self, source: Source) -> KeySource:
        if source.api_key_command is not None:
            with self._lock:
                key = self._commands.get(source.name)
                if key is None:
                    key = CommandKey(source.api_key_command, ttl_s=self.config.limits.credential_ttl_s)
                    self._commands[source.name] = key
            return key
        if not self.available(source):
            raise ConfigError(f"{source.name}: the key variable {source.api_key_env} is not set")
        return EnvKey(source.api_key_env or "")

    def provider(self, source: Source, *, json_reply: bool = False) -> ApiProvider:
        """A fresh wire client; `json_reply` (the arbiter of a `jsonMode` source) asks for a JSON object."""
        keys = self.keys(source)
        hint = source.api_key_env or "apiKeyCommand"
        if source.api_type == "anthropic":
            return AnthropicProvider(model=source.model, base_url=source.base_url, keys=keys, config=_PEER_CONFIG,
                                     key_hint=hint)
        official = normalize_base_url(source.base_url) == OPENAI_BASE_URL
        provider = OpenAIProvider(prefix="openai", model=source.model, base_url=source.base_url, keys=keys,
                                  config=_PEER_CONFIG, key_hint=hint,
                                  token_param="max_completion_tokens" if official else "max_tokens",
                                  extra_body={"response_format": {"type": "json_object"}} if json_reply else None)
        provider.url = f"{source.base_url}/chat/completions"   # the predecessor's rule: the base URL as given
        return provider

    def options(self, source: Source, *, arbiter: bool) -> CompletionOptions:
        """A peer gets no temperature, the arbiter temperature 0; both the source's output cap and timeout."""
        return CompletionOptions(max_tokens=source.max_output_tokens, timeout_s=source.timeout_s,
                                 temperature=0.0 if arbiter else None)

    def start(self, source: Source, messages: Sequence[Message], options: CompletionOptions,
              sink: queue.Queue[tuple[Call, Answer | ShowcauseError]], *, json_reply: bool = False) -> Call:
        call = Call(source, lambda on_client: self._complete(source, messages, options, on_client, json_reply), sink)
        call.start()
        return call

    def _complete(self, source: Source, messages: Sequence[Message], options: CompletionOptions,
                  on_client: Callable[[AbortableHttpClient], None], json_reply: bool) -> Answer:
        provider = self.provider(source, json_reply=json_reply)
        on_client(make_abortable(provider))
        try:
            reply = provider.answer(messages, options)
        finally:
            provider.close()
        turn = provider.settle(reply, prompt_chars=message_chars(messages))
        text = _THINK.sub("", turn.content).strip()
        if not text:
            raise MalformedResponseError(f"{source.name}: no usable text (finish_reason={turn.finish_reason})")
        return Answer(text=text, usage=turn.usage, finish_reason=turn.finish_reason, model=turn.model,
                      prompt_tokens=_reported(reply.usage, provider.prompt_key),
                      completion_tokens=_reported(reply.usage, provider.completion_key))


class Call:
    """One request in its own daemon thread (a stuck socket never holds the process at exit); the outcome,
    an Answer or a typed error, is put on `sink` with the call."""

    def __init__(self, source: Source, run: Callable[[Callable[[AbortableHttpClient], None]], Answer],
                 sink: queue.Queue[tuple[Call, Answer | ShowcauseError]]) -> None:
        self.source = source
        self._run = run
        self._sink = sink
        self._lock = threading.Lock()
        self._client: AbortableHttpClient | None = None
        self._aborted = False

    def start(self) -> None:
        # In the caller's context: an MCP call's cancellation scope and progress reach the request's thread.
        threading.Thread(target=contextvars.copy_context().run, args=(self._main,), name=f"quorum-{self.source.name}",
                         daemon=True).start()

    def _attach(self, client: AbortableHttpClient) -> None:
        with self._lock:
            self._client = client
            if self._aborted:
                client.abort()

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            if self._client is not None:
                self._client.abort()

    def _main(self) -> None:
        outcome: Answer | ShowcauseError
        try:
            outcome = self._run(self._attach)
        except ShowcauseError as exc:
            outcome = exc
        except Exception as exc:   # a bug in a wire client must not kill the quorum: one source's error
            outcome = ProviderError(f"{self.source.name}: {type(exc).__name__}")
        if self._aborted and not isinstance(outcome, Answer):
            outcome = PeerAborted(f"{self.source.name}: aborted")
        self._sink.put((self, outcome))
