import pytest

from throttling.bucket import TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_refill() -> None:
    clock = Clock()
    b = TokenBucket(rate=2, capacity=3, clock=clock)
    assert [b.try_take() for _ in range(4)] == [True, True, True, False]
    clock.now = 0.5
    assert b.try_take()
    assert not b.try_take()


def test_capacity_is_a_ceiling() -> None:
    clock = Clock()
    b = TokenBucket(rate=10, capacity=2, clock=clock)
    clock.now = 100
    assert [b.try_take() for _ in range(3)] == [True, True, False]


def test_wait_time() -> None:
    clock = Clock()
    b = TokenBucket(rate=4, capacity=1, clock=clock)
    b.try_take()
    assert b.wait_time() == 0.25


def test_invalid() -> None:
    with pytest.raises(ValueError):
        TokenBucket(0, 1)
