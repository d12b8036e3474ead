import pytest

from jobq.retry import RetryPolicy


def test_exponential_with_cap() -> None:
    policy = RetryPolicy(base="10s", cap="1m")
    assert [policy.delay_for(n) for n in range(1, 6)] == [10, 20, 40, 60, 60]


def test_attempt_is_one_based() -> None:
    with pytest.raises(ValueError):
        RetryPolicy().delay_for(0)
