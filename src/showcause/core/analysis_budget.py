"""What the host-side analysis of one review may cost, and what it left out.

showcause analyses the reviewed trees in its own process: comments blanked, names counted, sources
parsed by tree-sitter. Every scanner is linear in its file, but a tree can hold many or big files, and
tree-sitter's error recovery is super-linear on some hostile input (250 KB of `/* ` in a .js file parse
in about a minute). So each review has
* a size cap (policy `max_analysis_bytes`): a larger file is not analysed;
* a time limit per parse (:func:`parse_seconds`), many times what a normal source of that size needs;
* a time budget (policy `analysis_budget_s`) for all of its analysis, counted while analysis runs (not
  while tests run beside it) and checked before each file;
* a stop check at each of those points (`stop`: the sandbox's lifecycle check), so a signal or a client's
  cancellation ends the analysis between two files, not when its budget runs out.
What a cap or the budget left out is recorded here, and the review says so in a WARNING claim.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["PARSE_GAVE_UP", "PARSE_SECONDS", "PARSE_SECONDS_PER_MB", "AnalysisBudget", "parse_seconds"]

# Normal sources parse at 3-12 MB/s (measured on 0.1-2.3 MB files of Python, JavaScript and TypeScript).
PARSE_SECONDS = 0.5
PARSE_SECONDS_PER_MB = 2.0
PARSE_GAVE_UP = (f"tree-sitter did not finish parsing it within its time limit ({PARSE_SECONDS:g} s + "
                 f"{PARSE_SECONDS_PER_MB:g} s per MB)")
_LISTED = 5          # files named per reason in the summary


def parse_seconds(size: int) -> float:
    """How long a parse of `size` bytes may take before it is abandoned as hostile."""
    return PARSE_SECONDS + PARSE_SECONDS_PER_MB * size / 1_000_000


class AnalysisBudget:
    """The caps of one review's host-side analysis and what they left out; shared by its threads."""

    def __init__(self, seconds: float = 30.0, max_bytes: int = 4_000_000,
                 stop: Callable[[], None] | None = None) -> None:
        self.seconds = seconds
        self.max_bytes = max_bytes
        self._stop = stop   # raises when the review must end now (a signal, a cancelled MCP call)
        self._lock = threading.Lock()
        self._spent = 0.0
        self._open: dict[int, tuple[float, int]] = {}     # thread -> (since, nesting) of a measured section
        self._skipped: dict[str, str] = {}                 # what -> why, in the order found

    def used(self) -> float:
        """Seconds of analysis so far, the sections still running included."""
        now = time.monotonic()
        with self._lock:
            return self._spent + sum(now - since for since, _ in self._open.values())

    def remaining(self) -> float:
        return max(0.0, self.seconds - self.used())

    def expired(self) -> bool:
        if self._stop is not None:
            self._stop()
        return self.used() >= self.seconds

    @contextmanager
    def measure(self) -> Iterator[None]:
        """Count the time spent inside toward the budget; a thread's nested sections count once."""
        me = threading.get_ident()
        with self._lock:
            since, depth = self._open.get(me, (time.monotonic(), 0))
            self._open[me] = (since, depth + 1)
        try:
            yield
        finally:
            with self._lock:
                since, depth = self._open.pop(me)
                if depth > 1:
                    self._open[me] = (since, depth - 1)
                else:
                    self._spent += time.monotonic() - since

    def parse_limit(self, size: int) -> float:
        """The time a parse of `size` bytes may take now: its own limit, or what is left of the budget."""
        if self._stop is not None:
            self._stop()
        return min(parse_seconds(size), self.remaining())

    def skip(self, what: str, why: str) -> None:
        """Record that `what` (a path, or a step of the analysis) was not analysed, and why."""
        with self._lock:
            self._skipped.setdefault(what, why)

    def too_big(self, what: str, size: int) -> bool:
        """Whether a file of `size` bytes is over the cap (then it is recorded as skipped)."""
        if size <= self.max_bytes:
            return False
        self.skip(what, self.size_reason)
        return True

    @property
    def size_reason(self) -> str:
        return f"larger than max_analysis_bytes ({self.max_bytes} bytes)"

    def out_of_time(self, what: str) -> bool:
        """Whether the budget ran out before `what` (then it is recorded as skipped)."""
        if not self.expired():
            return False
        self.skip(what, self.budget_reason)
        return True

    def gave_up(self, what: str) -> str:
        """Record that the parse of `what` gave up; return why (its own time limit, or the budget)."""
        why = self.budget_reason if self.expired() else PARSE_GAVE_UP
        self.skip(what, why)
        return why

    @property
    def budget_reason(self) -> str:
        return f"the review's analysis_budget_s ({self.seconds:g} s) ran out"

    @property
    def skipped(self) -> list[tuple[str, str]]:
        with self._lock:
            return list(self._skipped.items())

    def summary(self) -> str | None:
        """What was not analysed and why, grouped by reason; None when nothing was left out."""
        by_why: dict[str, list[str]] = {}
        for what, why in self.skipped:
            by_why.setdefault(why, []).append(what)
        if not by_why:
            return None
        parts = []
        for why, whats in by_why.items():
            listed = ", ".join(whats[:_LISTED]) + (f" and {len(whats) - _LISTED} more" if len(whats) > _LISTED else "")
            parts.append(f"{listed} ({why})")
        return "; ".join(parts)
