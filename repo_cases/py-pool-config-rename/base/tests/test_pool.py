import pytest

from dbpool.pool import Pool, PoolTimeout
from dbpool.settings import PoolSettings


class FakeConn:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.step = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def make(**kw: float) -> tuple[Pool, Clock, list[FakeConn]]:
    made: list[FakeConn] = []
    clock = Clock()

    def connect(dsn: str) -> FakeConn:
        made.append(FakeConn())
        return made[-1]

    settings = PoolSettings("d", **kw)  # type: ignore[arg-type]
    return Pool(settings, connect, clock), clock, made


def test_reuses_idle_connection() -> None:
    pool, _, made = make(min_size=1, max_size=2)
    c = pool.acquire()
    pool.release(c)
    assert pool.acquire() is c
    assert len(made) == 1


def test_recycles_old_connections() -> None:
    pool, clock, made = make(min_size=1, max_size=2, max_conn_age=100.0)
    clock.now = 150.0
    c = pool.acquire()
    assert made[0].closed
    assert c is made[1]


def test_timeout_when_exhausted() -> None:
    pool, clock, _ = make(min_size=0, max_size=1, acquire_timeout=0.01)
    pool.acquire()
    clock.step = 0.5
    with pytest.raises(PoolTimeout):
        pool.acquire()
