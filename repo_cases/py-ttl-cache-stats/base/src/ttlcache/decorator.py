import functools
from collections.abc import Callable, Hashable
from typing import Any, ParamSpec, TypeVar

from ttlcache.cache import TTLCache

P = ParamSpec("P")
R = TypeVar("R")


def _key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Hashable:
    return (args, tuple(sorted(kwargs.items())))


def cached(ttl: float = 60.0, maxsize: int = 256) -> Callable[[Callable[P, R]], Callable[P, R]]:
    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        cache: TTLCache[Hashable, R] = TTLCache(maxsize=maxsize, ttl=ttl)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            key = _key(args, kwargs)
            hit = cache.get(key)
            if hit is not None:
                return hit
            value = func(*args, **kwargs)
            cache.set(key, value)
            return value

        wrapper.cache = cache  # type: ignore[attr-defined]
        return wrapper

    return decorate
