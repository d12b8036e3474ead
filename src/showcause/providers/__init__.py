"""Model providers: OpenAI-compatible, Anthropic and scripted, behind one `Provider.complete` call.

The concrete providers (and httpx, which they use) are imported when first named: a review without a
model never loads them. Their errors are in showcause.core.errors, with every other error.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from showcause.providers.base import (
    CompletionOptions,
    Message,
    ModelTurn,
    Provider,
    ProviderConfig,
    ProviderFactory,
    ProviderSpec,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
    Usage,
    clean_content,
    send,
)
from showcause.providers.registry import get_provider, known_prefixes, register_provider

if TYPE_CHECKING:
    from showcause.providers.anthropic import AnthropicProvider
    from showcause.providers.openai import OpenAIProvider
    from showcause.providers.scripted import ScriptedProvider

_LAZY = {"AnthropicProvider": "anthropic", "OpenAIProvider": "openai", "ScriptedProvider": "scripted"}

__all__ = [
    "AnthropicProvider",
    "CompletionOptions",
    "Message",
    "ModelTurn",
    "OpenAIProvider",
    "Provider",
    "ProviderConfig",
    "ProviderFactory",
    "ProviderSpec",
    "ScriptedProvider",
    "ToolCallRequest",
    "ToolChoice",
    "ToolSpec",
    "Usage",
    "clean_content",
    "get_provider",
    "known_prefixes",
    "register_provider",
    "send",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"showcause.providers.{module}"), name)
