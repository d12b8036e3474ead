"""The provider protocol and the neutral conversation types every judge codes against."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "DEFAULT_OPTIONS",
    "PRICES_PER_MTOK",
    "CompletionOptions",
    "Message",
    "ModelTurn",
    "Provider",
    "ProviderConfig",
    "ProviderFactory",
    "ProviderSpec",
    "ToolCallRequest",
    "ToolChoice",
    "ToolSpec",
    "Usage",
    "build_usage",
    "clean_content",
    "estimate_cost",
    "estimate_tokens",
    "message_chars",
    "send",
    "turn_chars",
]

ToolChoice = Literal["auto", "none", "required"]


@dataclass(frozen=True)
class ToolSpec:
    """What the model may call: a name, a description and a JSON schema of its arguments."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolCallRequest:
    """One tool call the model asked for; `arguments` is the raw string when the model sent unparsable JSON."""

    id: str
    name: str
    arguments: dict[str, Any] | str


@dataclass(frozen=True)
class Message:
    """One message of the neutral conversation format."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: tuple[ToolCallRequest, ...] = ()   # assistant messages only
    tool_call_id: str | None = None                # tool messages only
    name: str | None = None                        # tool messages: the tool name


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one call. `estimated` is true when any number here was not reported by the provider."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    estimated: bool = False


@dataclass(frozen=True)
class ModelTurn:
    """One assistant message as the provider returned it (content raw: `<think>` and fences left in)."""

    content: str
    tool_calls: tuple[ToolCallRequest, ...]
    usage: Usage
    finish_reason: str          # "stop" | "tool_calls" | "length" | other raw value
    model: str                  # as reported by the server, else as requested


@dataclass(frozen=True)
class CompletionOptions:
    """What one model call asks for besides the conversation."""

    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice = "auto"
    max_tokens: int = 8000
    temperature: float | None = None           # None: the server's default, and no parameter sent
    timeout_s: float = 120.0
    # A JSON schema the answer must follow, given only on turns without tools; a provider whose API can
    # constrain output to it (OpenAI's `response_format`) sends it, others ignore it.
    response_schema: Mapping[str, Any] | None = None

    @property
    def sent_tools(self) -> tuple[ToolSpec, ...]:
        """The tools a request carries: none at all when tool_choice is "none"."""
        return self.tools if self.tool_choice != "none" else ()


DEFAULT_OPTIONS = CompletionOptions()


@runtime_checkable
class Provider(Protocol):
    """A chat model behind one `complete` call. `name` is `prefix:model` and never contains a key."""

    name: str

    def complete(self, messages: Sequence[Message], options: CompletionOptions = DEFAULT_OPTIONS) -> ModelTurn:
        """One assistant turn for `messages`; a failure is one of the ProviderError codes of core/errors.py."""
        ...


def send(provider: object, messages: Sequence[Message], options: CompletionOptions) -> ModelTurn:
    """`provider.complete` with `options`, however it takes them.

    A plugin written before CompletionOptions takes them as keywords (`tools=`, `max_tokens=` …); it gets
    `response_schema` only when its `complete` names it or takes any keyword, so a plugin written before
    that parameter existed keeps working too.
    """
    complete = provider.complete  # type: ignore[attr-defined]
    params = _parameters(complete)
    if "options" in params:
        turn: ModelTurn = complete(messages, options)
        return turn
    kwargs: dict[str, Any] = {"tools": options.tools, "tool_choice": options.tool_choice,
                              "max_tokens": options.max_tokens, "temperature": options.temperature,
                              "timeout_s": options.timeout_s}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if options.response_schema is not None and ("response_schema" in params or takes_any):
        kwargs["response_schema"] = options.response_schema
    legacy: ModelTurn = complete(messages, **kwargs)
    return legacy


def _parameters(function: Any) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}


@dataclass(frozen=True)
class ProviderConfig:
    """How to reach a provider. None of these fields holds a key: keys come from the env or the key command."""

    base_url: str | None = None
    api_key_env: str | None = None
    key_command: str | None = None
    key_ttl_s: float = 300.0
    max_retries: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    reasoning_effort: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)



ProviderFactory = Callable[[str, "str | None", ProviderConfig], Provider]
"""(model, base_url or None, config) → Provider. `model` is everything after the first colon of `--model`."""


@dataclass(frozen=True)
class ProviderSpec:
    """What the provider registry holds for a prefix: how to make the provider, and whether it costs money."""

    factory: ProviderFactory
    free: bool = False   # scripted replays and local servers bill nothing: the bench reserves no money for them


_THINK = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|\Z)", re.DOTALL | re.IGNORECASE)
_ORPHAN_CLOSE = re.compile(r"\A.*?</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```", re.DOTALL)


def clean_content(text: str) -> str:
    """Text with reasoning and fences stripped, ready for a parser; the turn itself keeps the raw text.

    Drops `<think>…</think>` blocks (an unclosed one runs to the end; a closing tag whose opening tag was in
    the chat template drops everything before it), then unwraps the code fence when there is exactly one.
    """
    text = _THINK.sub("", text)
    text = _ORPHAN_CLOSE.sub("", text).strip()
    fences = _FENCE.findall(text)
    return fences[0].strip() if len(fences) == 1 else text


# USD per million tokens (input, output), matched by the longest model-name prefix. A small table: an
# estimate is flagged as such, and a model not in it has an unknown (None) cost.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-haiku-4": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-7-sonnet": (3.00, 15.00),
}


def estimate_tokens(chars: int) -> int:
    """A rough token count for `chars` characters of text (about four characters a token)."""
    return max(0, (chars + 3) // 4)


def estimate_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Price from PRICES_PER_MTOK (vendor prefixes like `openai/` ignored); None when the model is unknown."""
    bare = model.rsplit("/", 1)[-1].lower()
    for prefix in sorted(PRICES_PER_MTOK, key=len, reverse=True):
        if bare.startswith(prefix):
            price_in, price_out = PRICES_PER_MTOK[prefix]
            return round((prompt_tokens * price_in + completion_tokens * price_out) / 1_000_000, 8)
    return None


def message_chars(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> int:
    """Characters a request carries, for estimating prompt tokens when the server reports none."""
    total = 0
    for message in messages:
        total += len(message.content) + 8
        for call in message.tool_calls:
            total += len(call.name) + len(_args_text(call.arguments))
    for tool in tools:
        total += len(tool.name) + len(tool.description) + len(json.dumps(tool.input_schema))
    return total


def turn_chars(content: str, calls: Sequence[ToolCallRequest]) -> int:
    """Characters an answer carries, for estimating completion tokens when the server reports none."""
    return len(content) + sum(len(c.name) + len(json.dumps(c.arguments)) for c in calls)


def _args_text(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def build_usage(
    reported: Mapping[str, Any] | None,
    *,
    model: str,
    prompt_chars: int,
    completion_chars: int,
    prompt_key: str = "prompt_tokens",
    completion_key: str = "completion_tokens",
    free: bool = False,
) -> Usage:
    """Usage from what the server reported; tokens and cost it left out are estimated and flagged."""
    reported = reported or {}
    prompt = _int(reported.get(prompt_key))
    completion = _int(reported.get(completion_key))
    estimated = prompt is None or completion is None
    if prompt is None:
        prompt = estimate_tokens(prompt_chars)
    if completion is None:
        completion = estimate_tokens(completion_chars)
    cost_value = reported.get("cost")
    if isinstance(cost_value, int | float) and not isinstance(cost_value, bool):
        cost: float | None = float(cost_value)
    else:
        cost = 0.0 if free else estimate_cost(model, prompt, completion)
        estimated = estimated or cost is not None
    return Usage(prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost, estimated=estimated)
