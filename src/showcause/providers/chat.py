"""The base class every built-in provider shares: options in, one `ModelTurn` out, usage settled once.

A provider maps only its own source of answers to a `Reply` (`answer`): the HTTP APIs their wire formats
(providers/api.py), the scripted provider its file. What the reply leaves out — the model's name, token
counts, the cost — is filled in here, the same way for all of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from showcause.providers.base import (
    DEFAULT_OPTIONS,
    CompletionOptions,
    Message,
    ModelTurn,
    ToolCallRequest,
    Usage,
    build_usage,
    message_chars,
    turn_chars,
)

__all__ = ["ChatProvider", "Reply"]


@dataclass(frozen=True)
class Reply:
    """One answer as its source gave it, before usage is settled."""

    content: str
    tool_calls: tuple[ToolCallRequest, ...]
    finish_reason: str                                # "stop" | "tool_calls" | "length" | other raw value
    model: str | None = None                          # as reported; None: the model asked for
    # The numbers the source reported (under its own keys), a complete Usage, or None: nothing reported.
    usage: Mapping[str, Any] | Usage | None = None


class ChatProvider(ABC):
    """A `Provider` whose `complete` turns the reply of `answer` into a ModelTurn.

    Tokens a reply does not report are estimated from the characters sent and received and flagged; the
    cost comes from the reply, else the price table (zero for a `free` provider), else it is unknown.
    """

    prompt_key: ClassVar[str] = "prompt_tokens"        # where the reported usage keeps each count
    completion_key: ClassVar[str] = "completion_tokens"

    def __init__(self, *, name: str, model: str, free: bool = False) -> None:
        self.name = name
        self.model = model
        self.free = free

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    def close(self) -> None:
        """Release what the provider holds open (connections); it may still be used afterwards."""
        return None

    def complete(self, messages: Sequence[Message], options: CompletionOptions = DEFAULT_OPTIONS) -> ModelTurn:
        reply = self.answer(messages, options)
        return self.settle(reply, prompt_chars=message_chars(messages, options.sent_tools))

    @abstractmethod
    def answer(self, messages: Sequence[Message], options: CompletionOptions) -> Reply:
        """The reply to one request; a failure raises one of the ProviderError codes."""

    def settle(self, reply: Reply, *, prompt_chars: int) -> ModelTurn:
        """The turn of `reply`, with the model's name and a complete usage."""
        model = reply.model or self.model
        usage = reply.usage if isinstance(reply.usage, Usage) else build_usage(
            reply.usage, model=model, prompt_chars=prompt_chars,
            completion_chars=turn_chars(reply.content, reply.tool_calls),
            prompt_key=self.prompt_key, completion_key=self.completion_key, free=self.free)
        return ModelTurn(content=reply.content, tool_calls=reply.tool_calls, usage=usage,
                         finish_reason=reply.finish_reason, model=model)
