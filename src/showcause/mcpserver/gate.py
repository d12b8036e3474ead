"""How many repository calls (reviews and registry tools, each of which copies a snapshot of the repository)
the MCP server runs at once: a few, a bounded queue behind them, and a clear BUSY error beyond that, so 40
concurrent calls do not make 40 copies of a tree at once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from showcause.core.errors import ServerBusy
from showcause.sandbox.lifecycle import check_stopping

__all__ = ["MAX_RUNNING", "MAX_WAITING", "CallGate"]

MAX_RUNNING = 4     # on 2 cores a review's sandboxed processes share them anyway; copies cost memory and disk
MAX_WAITING = 16


class CallGate:
    def __init__(self, running: int = MAX_RUNNING, waiting: int = MAX_WAITING) -> None:
        self.limit, self.queue = running, waiting
        self._cond = threading.Condition()
        self.running = self.waiting = 0

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Run the body once fewer than `limit` calls run; ServerBusy at once when the queue is full too."""
        with self._cond:
            if self.running >= self.limit and self.waiting >= self.queue:
                raise ServerBusy(f"the server already runs {self.running} repository calls and queues "
                                 f"{self.waiting} more; try again when one finishes")
            self.waiting += 1
            try:
                # A queued call the client cancels (or a signal) leaves the queue at once, never runs.
                while not self._cond.wait_for(lambda: self.running < self.limit, timeout=0.2):
                    check_stopping()
            finally:
                self.waiting -= 1
            self.running += 1
        try:
            yield
        finally:
            with self._cond:
                self.running -= 1
                self._cond.notify()
