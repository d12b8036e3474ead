import pytest

from ttlcache.cache import TTLCache


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_expiry() -> None:
    clock = Clock()
    c: TTLCache[str, int] = TTLCache(ttl=10, clock=clock)
    c.set("a", 1)
    clock.now = 9.9
    assert c.get("a") == 1
    clock.now = 10.0
    assert c.get("a") is None
    assert len(c) == 0


def test_lru_eviction() -> None:
    c: TTLCache[str, int] = TTLCache(maxsize=2)
    c.set("a", 1)
    c.set("b", 2)
    c.get("a")
    c.set("c", 3)
    assert c.get("b") is None and c.get("a") == 1


def test_purge_and_pop() -> None:
    clock = Clock()
    c: TTLCache[str, int] = TTLCache(ttl=5, clock=clock)
    c.set("a", 1)
    c.set("b", 2)
    assert c.pop("b") == 2
    clock.now = 6
    assert c.purge_expired() == 1


def test_invalid() -> None:
    with pytest.raises(ValueError):
        TTLCache(maxsize=0)
