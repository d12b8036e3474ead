"""`--model provider:model` → a Provider. One dict of prefixes; plugins add theirs with `register_provider`."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.metadata import entry_points

from showcause.providers.base import Provider, ProviderConfig
from showcause.providers.errors import ConfigError

__all__ = ["ENTRY_POINT_GROUP", "PROVIDERS", "ProviderFactory", "get_provider", "known_prefixes", "register_provider",
           "wrapping_providers"]

log = logging.getLogger("showcause.providers")

ProviderFactory = Callable[[str, "str | None", ProviderConfig], Provider]
"""(model, base_url or None, config) → Provider. `model` is everything after the first colon."""

ENTRY_POINT_GROUP = "showcause.providers"


def _builtin(module: str, name: str) -> ProviderFactory:
    """A built-in factory, imported on first use: the HTTP providers pull in httpx, which a review without a
    model (and every `showcause` start) should not pay for."""

    def factory(model: str, base_url: str | None, config: ProviderConfig) -> Provider:
        make = getattr(importlib.import_module(f"showcause.providers.{module}"), name)
        made: Provider = make(model, base_url, config)
        return made

    return factory


PROVIDERS: dict[str, ProviderFactory] = {
    "openai": _builtin("openai", "openai_provider"),
    "openrouter": _builtin("openai", "openrouter_provider"),
    "ollama": _builtin("openai", "ollama_provider"),
    "anthropic": _builtin("anthropic", "anthropic_provider"),
    "scripted": _builtin("scripted", "scripted_provider"),
}
_plugins_loaded = False
# A wrapper for every provider made in the current context (the benchmark meters and paces model calls).
_WRAPPER: ContextVar[Callable[[Provider], Provider] | None] = ContextVar("showcause_provider_wrapper", default=None)


@contextmanager
def wrapping_providers(wrap: Callable[[Provider], Provider]) -> Iterator[None]:
    """Within this block (this thread's context), `get_provider` returns `wrap(provider)`."""
    token = _WRAPPER.set(wrap)
    try:
        yield
    finally:
        _WRAPPER.reset(token)


def register_provider(prefix: str, factory: ProviderFactory, *, replace: bool = False) -> None:
    """Add a provider prefix (what a plugin calls). Replacing a known prefix must be explicit."""
    if not prefix or ":" in prefix:
        raise ConfigError(f"invalid provider prefix {prefix!r}")
    if prefix in PROVIDERS and not replace:
        raise ConfigError(f"provider prefix {prefix!r} is already registered")
    PROVIDERS[prefix] = factory


def _load_plugins() -> None:
    """Entry points in group `showcause.providers`: name = prefix, value = a ProviderFactory."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in PROVIDERS:
            continue
        try:
            PROVIDERS[ep.name] = ep.load()
        except Exception as exc:  # a broken plugin must not break the built-in providers
            log.warning("provider plugin %s could not be loaded: %s", ep.name, exc)


def known_prefixes() -> list[str]:
    _load_plugins()
    return sorted(PROVIDERS)


def get_provider(spec: str, *, base_url: str | None = None, config: ProviderConfig | None = None) -> Provider:
    """The provider for `prefix:model` (the model may itself contain colons, e.g. `ollama:qwen3:14b`).

    `base_url` overrides `config.base_url`, which overrides the provider's environment variable and default.
    An unknown prefix or an empty model is a CONFIG_ERROR listing the known prefixes.
    """
    known = known_prefixes()
    prefix, sep, model = spec.strip().partition(":")
    if not sep or not prefix:
        raise ConfigError(f"--model must be provider:model (known providers: {', '.join(known)}); got {spec!r}")
    factory = PROVIDERS.get(prefix)
    if factory is None:
        raise ConfigError(f"unknown provider {prefix!r} (known providers: {', '.join(known)})")
    if not model.strip():
        raise ConfigError(f"--model {prefix}: names no model (expected {prefix}:MODEL)")
    provider = factory(model.strip(), base_url, config or ProviderConfig())
    wrap = _WRAPPER.get()
    return provider if wrap is None else wrap(provider)
