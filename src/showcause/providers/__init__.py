"""Model providers: OpenAI-compatible, Anthropic and scripted, behind one `Provider.complete` call."""

from __future__ import annotations

from showcause.providers.anthropic import AnthropicProvider
from showcause.providers.base import (
    Message,
    ModelTurn,
    Provider,
    ProviderConfig,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
    Usage,
    clean_content,
)
from showcause.providers.errors import (
    ConfigError,
    MalformedResponseError,
    OutputTruncatedError,
    ProviderError,
    ProviderHTTPError,
    ProviderNetworkError,
    ProviderTimeoutError,
    RateLimitedError,
)
from showcause.providers.openai import OpenAIProvider
from showcause.providers.registry import get_provider, known_prefixes, register_provider
from showcause.providers.scripted import ScriptedProvider

__all__ = [
    "AnthropicProvider",
    "ConfigError",
    "MalformedResponseError",
    "Message",
    "ModelTurn",
    "OpenAIProvider",
    "OutputTruncatedError",
    "Provider",
    "ProviderConfig",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderNetworkError",
    "ProviderTimeoutError",
    "RateLimitedError",
    "ScriptedProvider",
    "ToolCallRequest",
    "ToolChoice",
    "ToolSpec",
    "Usage",
    "clean_content",
    "get_provider",
    "known_prefixes",
    "register_provider",
]
