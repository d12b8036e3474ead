from throttling.limiter import Limiter


def test_free_plan_burst_and_retry_after() -> None:
    now = [0.0]
    limiter = Limiter(lambda: now[0])
    results = [limiter.check("k1", "free")[0] for _ in range(6)]
    assert results == [True] * 5 + [False]
    assert limiter.check("k1", "free")[1] == {"Retry-After": "1"}
    assert limiter.check("k2", "free")[0]
