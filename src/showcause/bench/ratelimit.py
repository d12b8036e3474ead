"""`--max-rpm`: one limiter shared by every worker, spacing model calls evenly.

A token bucket of capacity one: call starts are at least 60/N seconds apart across the whole run, with no
burst. Bursts are what providers' per-minute limits punish, and even spacing is what a test can measure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["RateLimiter"]


class RateLimiter:
    """`wait()` returns when the caller may start its call; slots are handed out in arrival order."""

    def __init__(self, per_minute: float, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self.interval_s = 60.0 / per_minute
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next = 0.0
        self.waited_s = 0.0

    def wait(self) -> float:
        """Block until this caller's slot; returns the seconds waited."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval_s
            delay = slot - now
            self.waited_s += delay
        if delay > 0:
            self._sleep(delay)
        return delay
