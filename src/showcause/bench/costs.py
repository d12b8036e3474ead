"""What a benchmark spends: prices, per-review reserves, the append-only spend ledger and the `--max-cost` stop.

Accounting is per model call, never all-or-nothing: a call's cost is what the provider reported, else
its estimate from the price table (flagged), else unknown. A call that timed out or lost its connection
may still be billed, so it is charged as estimated prompt tokens plus its whole completion cap.

The hard stop: before an attempt starts, spent (every ledger entry, earlier sessions included) + the
reserves of the attempts in flight + this attempt's reserve must fit under `--max-cost`. A start that
fits only once the attempts in flight have settled waits for them; one that does not fit even with
nothing in flight stops the run. A reserve is the review's whole token budget at the model's higher
per-token price, or a flat `unpriced_reserve` when the price is unknown. An attempt that made a call of
unknown price is charged at least that flat reserve, so the stop never undercounts what it cannot price.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from showcause.bench.decision_arms import bench_decision_mode
from showcause.core import jsonsafe
from showcause.judges.contract import mode_budget
from showcause.judges.registry import judge_mode
from showcause.policy import Policy, load_policy
from showcause.providers.base import Usage, estimate_cost
from showcause.providers.registry import is_free

__all__ = ["Meter", "SpendLedger", "charged_usd", "price_per_token", "review_reserve"]

# Failures after which a request may have been processed and billed without any usage coming back.
_BILLED_FAILURES = ("TIMEOUT", "PROVIDER_NETWORK_ERROR")


def price_per_token(model: str) -> tuple[float, float] | None:
    """(input, output) USD per token for `provider:model`; None when no price is known."""
    prefix, _, name = model.partition(":")
    if is_free(prefix):   # the provider registry says which bill nothing (a replay, a local server)
        return (0.0, 0.0)
    price_in = estimate_cost(name, 1_000_000, 0)
    price_out = estimate_cost(name, 0, 1_000_000)
    if price_in is None or price_out is None:
        return None
    return (price_in / 1_000_000, price_out / 1_000_000)


def review_reserve(mode: str, model: str | None, unpriced_reserve: float, policy: Policy | None = None, *,
                   decision: bool = False) -> float:
    """What one attempt may cost at most: all the tokens its budget allows in each of its passes, every token
    at the higher price; the mode's spec says which budget group and how many passes. ``policy``: the
    bench's (defaults and --config); a case's own config can only lower it. ``decision``: ``mode`` is a
    decision mode's `--mode` name."""
    if model is None:
        return 0.0
    price = price_per_token(model)
    if price is None:
        return unpriced_reserve
    spec = bench_decision_mode(mode, has_model=True).spec if decision else judge_mode(mode, has_model=True).spec
    budget = mode_budget(spec, policy or load_policy())
    return 0.0 if budget is None else budget.tokens * spec.passes * max(price)


class Meter:
    """Usage and cost of one attempt, call by call (locked: one provider may be shared by threads)."""

    def __init__(self, price: tuple[float, float] | None) -> None:
        self.price = price
        self._lock = threading.Lock()
        self.calls = self.failed_calls = 0
        self.prompt_tokens = self.completion_tokens = 0
        self.cost_reported = self.cost_estimated = 0.0
        self.reported_calls = self.estimated_calls = self.unpriced_calls = 0
        self.last_error: tuple[str, int | None] | None = None

    def add(self, usage: Usage) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
            self._cost(usage.cost_usd, usage.estimated)

    def add_failure(self, code: str, status: int | None, prompt_tokens: int, max_tokens: int) -> None:
        """A call that raised. Timeouts and lost connections are charged as if the whole cap was used."""
        with self._lock:
            self.calls += 1
            self.failed_calls += 1
            self.last_error = (code, status)
            if code not in _BILLED_FAILURES:
                return
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += max_tokens
            cost = None if self.price is None else prompt_tokens * self.price[0] + max_tokens * self.price[1]
            self._cost(cost, True)

    def _cost(self, cost: float | None, estimated: bool) -> None:
        if cost is None:
            self.unpriced_calls += 1
        elif estimated:
            self.estimated_calls += 1
            self.cost_estimated += cost
        else:
            self.reported_calls += 1
            self.cost_reported += cost

    _STATE = ("calls", "failed_calls", "prompt_tokens", "completion_tokens", "cost_reported", "cost_estimated",
              "reported_calls", "estimated_calls", "unpriced_calls")

    def state(self) -> dict[str, Any]:
        """The counters, for a meter that ran in another process (a cluster worker's attempt)."""
        with self._lock:
            return {k: getattr(self, k) for k in self._STATE} | {"last_error": self.last_error}

    def absorb(self, state: dict[str, Any]) -> None:
        """Add a remote meter's counters to this one."""
        with self._lock:
            for k in self._STATE:
                setattr(self, k, getattr(self, k) + state[k])
            last = state.get("last_error")
            self.last_error = (last[0], last[1]) if last else self.last_error

    def charge_lost(self, amount: float) -> None:
        """An attempt whose calls were lost with their process: charged its whole reserve, as an estimate."""
        with self._lock:
            self.estimated_calls += 1
            self.cost_estimated += amount

    def summary(self) -> dict[str, Any]:
        with self._lock:
            kinds = [k for k, n in (("reported", self.reported_calls), ("estimated", self.estimated_calls),
                                    ("unknown", self.unpriced_calls)) if n]
            priced = self.reported_calls + self.estimated_calls
            return {"calls": self.calls, "failed_calls": self.failed_calls, "prompt_tokens": self.prompt_tokens,
                    "completion_tokens": self.completion_tokens,
                    "cost_usd": round(self.cost_reported + self.cost_estimated, 8) if priced else None,
                    "cost_reported_usd": round(self.cost_reported, 8),
                    "cost_estimated_usd": round(self.cost_estimated, 8), "unpriced_calls": self.unpriced_calls,
                    "cost_source": kinds[0] if len(kinds) == 1 else ("mixed" if kinds else "none")}


def charged_usd(summary: dict[str, Any], unpriced_reserve: float) -> float:
    """What the hard stop counts for an attempt: its cost, and at least the flat reserve if part is unknown."""
    cost = summary["cost_usd"] or 0.0
    return max(cost, unpriced_reserve) if summary["unpriced_calls"] else cost


class SpendLedger:
    """`spend.jsonl`: one line per attempt, never rewritten; earlier sessions' lines count toward the limit."""

    def __init__(self, path: Path, max_cost: float | None) -> None:
        self.path = path
        self.max_cost = max_cost
        self._cond = threading.Condition()
        self._inflight = 0.0
        self.entries: list[dict[str, Any]] = []
        self.stopped: dict[str, Any] | None = None
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = jsonsafe.loads(line, max_bytes=jsonsafe.MAX_RECORD_BYTES)
                except ValueError:
                    continue  # a line cut by a crash
                if isinstance(entry, dict):
                    self.entries.append(entry)
        self.before = len(self.entries)
        self.spent = sum(float(e.get("charged_usd") or 0.0) for e in self.entries)

    def reserve(self, amount: float, what: str) -> bool:
        """Claim `amount` for an attempt about to start; False (and the run is stopped) when it cannot fit."""
        with self._cond:
            while True:
                if self.stopped is not None:
                    return False
                if self.max_cost is None or self.spent + self._inflight + amount <= self.max_cost + 1e-12:
                    self._inflight += amount
                    return True
                if self._inflight <= 0:
                    self.stopped = {"reason": "max_cost", "max_cost_usd": self.max_cost,
                                    "spent_usd": round(self.spent, 8), "next_reserve_usd": round(amount, 8),
                                    "next": what}
                    self._cond.notify_all()
                    return False
                self._cond.wait()   # settles of the attempts in flight may make room

    def settle(self, amount: float, entry: dict[str, Any]) -> None:
        """Release a reservation and append what the attempt really cost."""
        entry = {"ts": round(time.time(), 3), **entry}
        with self._cond:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")
            self.entries.append(entry)
            self.spent += float(entry.get("charged_usd") or 0.0)
            self._inflight = max(0.0, self._inflight - amount)
            self._cond.notify_all()

    def totals(self) -> dict[str, Any]:
        with self._cond:
            by_source: dict[str, int] = {}
            for e in self.entries:
                by_source[e.get("cost_source", "none")] = by_source.get(e.get("cost_source", "none"), 0) + 1
            earlier = sum(float(e.get("charged_usd") or 0.0) for e in self.entries[:self.before])
            return {"ledger": self.path.name, "attempts": len(self.entries), "charged_usd": round(self.spent, 8),
                    "charged_before_this_session_usd": round(earlier, 8),
                    "cost_usd": round(sum(float(e.get("cost_usd") or 0.0) for e in self.entries), 8),
                    "cost_reported_usd": round(sum(float(e.get("cost_reported_usd") or 0.0)
                                                   for e in self.entries), 8),
                    "cost_estimated_usd": round(sum(float(e.get("cost_estimated_usd") or 0.0)
                                                    for e in self.entries), 8),
                    "unpriced_calls": sum(int(e.get("unpriced_calls") or 0) for e in self.entries),
                    "attempts_by_cost_source": by_source, "max_cost_usd": self.max_cost}
