from collections.abc import Callable
from dataclasses import dataclass
import time

from throttling.bucket import TokenBucket


@dataclass(frozen=True)
class Plan:
    name: str
    per_second: float
    burst: int


PLANS = {"free": Plan("free", 1, 5), "pro": Plan("pro", 20, 100), "internal": Plan("internal", 200, 1000)}


class Limiter:
    """One token bucket per API key."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def bucket(self, api_key: str, plan: str) -> TokenBucket:
        if api_key not in self._buckets:
            p = PLANS[plan]
            self._buckets[api_key] = TokenBucket(p.per_second, p.burst, self._clock)
        return self._buckets[api_key]

    def check(self, api_key: str, plan: str) -> tuple[bool, dict[str, str]]:
        bucket = self.bucket(api_key, plan)
        if bucket.try_take():
            return True, {}
        return False, {"Retry-After": str(max(1, round(bucket.wait_time())))}
