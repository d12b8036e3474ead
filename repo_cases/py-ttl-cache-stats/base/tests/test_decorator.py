from ttlcache.decorator import cached


def test_cached_calls_once() -> None:
    calls: list[int] = []

    @cached(ttl=60)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert square(3) == 9
    assert square(3) == 9
    assert square(x=3) == 9
    assert calls == [3, 3]
