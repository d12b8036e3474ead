import heapq
import itertools
import time
from collections.abc import Callable

from jobq.durations import parse_duration
from jobq.jobs import Job
from jobq.retry import RetryPolicy


class Scheduler:
    def __init__(self, clock: Callable[[], float] = time.time, retry: RetryPolicy | None = None) -> None:
        self.clock = clock
        self.retry = retry or RetryPolicy()
        self._heap: list[tuple[float, int, Job]] = []
        self._seq = itertools.count()

    def schedule_at(self, job: Job, when: float) -> None:
        heapq.heappush(self._heap, (when, next(self._seq), job))

    def schedule_in(self, job: Job, delay: str) -> float:
        run_at = self.clock() + parse_duration(delay)
        self.schedule_at(job, run_at)
        return run_at

    def reschedule_failed(self, job: Job) -> float | None:
        job.attempts += 1
        if job.attempts >= job.max_attempts:
            return None
        run_at = self.clock() + self.retry.delay_for(job.attempts)
        self.schedule_at(job, run_at)
        return run_at

    def due(self) -> list[Job]:
        now = self.clock()
        ready: list[Job] = []
        while self._heap and self._heap[0][0] <= now:
            ready.append(heapq.heappop(self._heap)[2])
        return ready
