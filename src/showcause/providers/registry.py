"""`--model provider:model` → a Provider, from the provider registry (showcause.core.registry).

Plugins add a prefix with `register_provider` or an entry point in group `showcause.providers`: name =
the prefix, value = ``module:attribute`` naming a `ProviderSpec` (which says whether the provider costs
money) or a bare `ProviderFactory` (taken to cost money).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import TypeVar, cast

from showcause.core.errors import ConfigError
from showcause.core.registry import Registry
from showcause.providers.base import Provider, ProviderConfig, ProviderFactory, ProviderSpec

__all__ = ["ENTRY_POINT_GROUP", "PROVIDERS", "ProviderFactory", "ProviderSpec", "get_provider", "is_free",
           "known_prefixes", "providers_markdown", "register_provider", "supplying_providers", "wrap_provider",
           "wrapping_providers"]

ENTRY_POINT_GROUP = "showcause.providers"
_T = TypeVar("_T")

# Each built-in is imported when first named: the HTTP providers pull in httpx, which a review without a
# model (and every `showcause` start) should not pay for.
_BUILTINS = {
    "openai": "showcause.providers.openai:OPENAI",
    "openrouter": "showcause.providers.openai:OPENROUTER",
    "ollama": "showcause.providers.openai:OLLAMA",
    "anthropic": "showcause.providers.anthropic:ANTHROPIC",
    "scripted": "showcause.providers.scripted:SCRIPTED",
}


def _adapt(_prefix: str, loaded: object) -> ProviderSpec:
    if isinstance(loaded, ProviderSpec):
        return loaded
    if callable(loaded):   # a plain factory (what plugins registered before specs existed): not free
        return ProviderSpec(cast(ProviderFactory, loaded))
    raise TypeError(f"{loaded!r} is neither a ProviderSpec nor a provider factory")


PROVIDERS: Registry[ProviderSpec] = Registry("provider", ENTRY_POINT_GROUP, _BUILTINS, _adapt)

# A wrapper for every provider made in the current context (the benchmark meters and paces model calls).
_WRAPPER: ContextVar[Callable[[Provider], Provider] | None] = ContextVar("showcause_provider_wrapper", default=None)
# Providers built by the caller for specs it names (the bench's quorum members: each source's own URL and key).
_SUPPLIED: ContextVar[Mapping[str, Callable[[], Provider]] | None] = ContextVar("showcause_supplied_providers",
                                                                                default=None)


@contextmanager
def _scoped(var: ContextVar[_T | None], value: _T) -> Iterator[None]:
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def wrapping_providers(wrap: Callable[[Provider], Provider]) -> AbstractContextManager[None]:
    """Within this block (this thread's context), `get_provider` returns `wrap(provider)`."""
    return _scoped(_WRAPPER, wrap)


def supplying_providers(factories: Mapping[str, Callable[[], Provider]]) -> AbstractContextManager[None]:
    """Within this block (this thread's context), `get_provider(spec)` for a spec named in `factories` returns
    what its factory makes, wrapped like any other: such a spec need not name a registered prefix."""
    return _scoped(_SUPPLIED, factories)


def wrap_provider(provider: Provider) -> Provider:
    """`provider` as `get_provider` hands it out in this context: for a client built without the registry
    (a quorum's sources), so the benchmark meters its calls too."""
    wrap = _WRAPPER.get()
    return provider if wrap is None else wrap(provider)


def register_provider(prefix: str, provider: ProviderFactory | ProviderSpec, *, replace: bool = False) -> None:
    """Add a provider prefix (what a plugin calls). Replacing a known prefix must be explicit."""
    if not prefix or ":" in prefix:
        raise ConfigError(f"invalid provider prefix {prefix!r}")
    PROVIDERS.register(prefix, _adapt(prefix, provider), replace=replace)


def known_prefixes() -> list[str]:
    return sorted(PROVIDERS.names())


def is_free(prefix: str) -> bool:
    """Whether `prefix:…` models cost nothing (a replay, a local server); an unknown prefix is not free."""
    spec = PROVIDERS.get(prefix)
    return spec is not None and spec.free


def get_provider(spec: str, *, base_url: str | None = None, config: ProviderConfig | None = None) -> Provider:
    """The provider for `prefix:model` (the model may itself contain colons, e.g. `ollama:qwen3:14b`).

    `base_url` overrides `config.base_url`, which overrides the provider's environment variable and default.
    An unknown prefix or an empty model is a CONFIG_ERROR listing the known prefixes.
    """
    supplied = (_SUPPLIED.get() or {}).get(spec.strip())
    if supplied is not None:
        return wrap_provider(supplied())
    known = known_prefixes()
    prefix, sep, model = spec.strip().partition(":")
    if not sep or not prefix:
        raise ConfigError(f"`model` must be provider:model (known providers: {', '.join(known)}); got {spec!r}")
    entry = PROVIDERS.get(prefix)
    if entry is None:
        raise ConfigError(f"unknown provider {prefix!r} (known providers: {', '.join(known)})")
    if not model.strip():
        raise ConfigError(f"`model` {prefix}: names no model (expected {prefix}:MODEL)")
    return wrap_provider(entry.factory(model.strip(), base_url, config or ProviderConfig()))


def providers_markdown() -> str:
    """The table of provider prefixes in docs/modes.md, generated from the registry."""
    rows = ["| `--model` prefix | costs money |", "|---|---|"]
    rows += [f"| `{prefix}:` | {'no' if is_free(prefix) else 'yes'} |" for prefix in known_prefixes()]
    return "\n".join(rows) + "\n"
