import time
from collections.abc import Callable


class TokenBucket:
    """`rate` tokens per second, up to `capacity` tokens banked."""

    def __init__(self, rate: float, capacity: int, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or capacity <= 0:
            raise ValueError("rate and capacity must be positive")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = capacity
        self._updated = clock()

    def _refill(self) -> None:
        now = self._clock()
        earned = int((now - self._updated) * self.rate)
        if earned > 0:
            self._tokens = min(self.capacity, self._tokens + earned)
            self._updated = now

    def try_take(self, n: int = 1) -> bool:
        self._refill()
        if self._tokens >= n:
            self._tokens -= n
            return True
        return False

    def wait_time(self, n: int = 1) -> float:
        self._refill()
        missing = n - self._tokens
        return max(0.0, missing / self.rate)
