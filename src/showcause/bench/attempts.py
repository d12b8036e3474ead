"""One benchmark record: a (case, run, mode, model) reviewed, with retries for transient failures.

Every attempt is reserved against the cost limit before it starts, metered call by call while it runs,
and written to the spend ledger when it ends, whatever its outcome. The record sums usage and cost over
all its attempts (earlier sessions' included when a resume re-runs it) and lists each retried failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from showcause.bench.cases import Case
from showcause.bench.costs import Meter, SpendLedger, charged_usd, price_per_token, review_reserve
from showcause.bench.decision_arms import bench_decision_mode
from showcause.bench.decision_casefile import DecisionCase
from showcause.bench.metering import MeteredProvider
from showcause.bench.quorum_arms import quorum_summary
from showcause.bench.ratelimit import RateLimiter
from showcause.core.errors import ShowcauseError
from showcause.decision.review import review_decision_input
from showcause.policy import Policy
from showcause.providers.base import Provider
from showcause.providers.registry import supplying_providers, wrapping_providers
from showcause.service import ChangeSource, ReviewOptions, review_change

if TYPE_CHECKING:   # bench/quorum_arms.py loads the quorum only when a bench names one
    from showcause.bench.quorum_arms import QuorumArms

__all__ = ["TRANSIENT_CODES", "Attempt", "AttemptPolicy", "Job", "blank_outcome", "is_transient", "record_key",
           "review_attempt", "run_job"]

# WORKER_LOST: the cluster worker running the attempt died (bench/dask_exec.py); another one runs it again.
TRANSIENT_CODES = ("TIMEOUT", "PROVIDER_NETWORK_ERROR", "RATE_LIMITED", "WORKER_LOST")
_USAGE_KEYS = ("calls", "failed_calls", "prompt_tokens", "completion_tokens", "unpriced_calls")


@dataclass(frozen=True)
class Job:
    case: Case | DecisionCase
    mode: str
    model: str | None
    run: int
    order: tuple[str, ...] = ()   # a decision case: the shuffled order of its modes in this run

    @property
    def key(self) -> tuple[str, str, str | None, int]:
        return (self.case.id, self.mode, self.model, self.run)

    def label(self) -> str:
        return f"{self.case.id} {self.mode}{f' {self.model}' if self.model else ''} run {self.run}"


def record_key(record: dict[str, Any]) -> tuple[str, str, str | None, int]:
    return (record["case"], record["mode"], record.get("model"), record["run"])


def is_transient(error: dict[str, Any] | None) -> bool:
    """Worth another attempt: timeouts, network and rate-limit failures, and server errors (HTTP ≥ 500)."""
    if not error:
        return False
    code, status = error.get("code"), error.get("status")
    return code in TRANSIENT_CODES or (code == "PROVIDER_HTTP_ERROR" and isinstance(status, int) and status >= 500)


@dataclass
class AttemptPolicy:
    config: Path | None
    base_url: str | None
    retries: int
    backoff_s: float
    unpriced_reserve: float
    ledger: SpendLedger
    limiter: RateLimiter | None = None
    sleep: Callable[[float], None] = field(default=time.sleep)
    limits: Policy = field(default_factory=Policy)  # the bench's policy: budgets for the cost reserve
    isolation: str | None = None                    # --isolation, over each case's policy
    quorum: QuorumArms | None = None                # --modes quorum: its record name and its members

    def price(self, model: str | None) -> tuple[float, float] | None:
        if model is None:
            return (0.0, 0.0)
        return self.quorum.price(model) if self.quorum is not None and self.quorum.owns(model) else \
            price_per_token(model)

    def reserve(self, job: Job) -> float:
        if self.quorum is not None and job.model is not None and self.quorum.owns(job.model):
            return self.quorum.reserve(job.mode, job.model, self.unpriced_reserve, self.limits)
        return review_reserve(job.mode, job.model, self.unpriced_reserve, self.limits,
                              decision=isinstance(job.case, DecisionCase))

    def backoff(self, retry: int, code: str | None) -> float:
        """Exponential: backoff_s, then 2x, 4x; three times longer after a rate limit; none after a lost
        worker (nothing is wrong with the provider)."""
        if code == "WORKER_LOST":
            return 0.0
        return self.backoff_s * (2 ** retry) * (3 if code == "RATE_LIMITED" else 1)


def _options(job: Job, policy: AttemptPolicy) -> tuple[ReviewOptions, Mapping[str, Callable[[], Provider]]]:
    """How to review `job`, and the providers a quorum member's review gets from its source."""
    # eager_base off: many reviews share the cores, so no speculative base checks.
    arms = policy.quorum
    if arms is not None and job.model == arms.label:
        return ReviewOptions(mode=job.mode, config=policy.config, isolation=policy.isolation, eager_base=False,
                             quorum=arms.quorum), {}
    if arms is not None and arms.owns(job.model):
        return ReviewOptions(mode=job.mode, model=job.model, config=policy.config, isolation=policy.isolation,
                             eager_base=False), arms.supplied()
    return ReviewOptions(mode=job.mode, model=job.model, base_url=policy.base_url if job.model else None,
                         config=policy.config, isolation=policy.isolation, eager_base=False), {}


def _review_change(job: Job, policy: AttemptPolicy) -> dict[str, Any]:
    assert isinstance(job.case, Case)
    options, members = _options(job, policy)
    with supplying_providers(members):
        result = review_change(ChangeSource(case=job.case.path), options)
    out = {"verdict": result.verdict, "model_verdict": result.model_verdict,
           "status": "error" if result.error else "ok", "error": result.error,
           "claims": [c.to_json() for c in result.claims], "tool_calls": len(result.tool_calls),
           "served_model": result.meta.model if job.model else None, "prompts": result.meta.prompts or {}}
    if policy.quorum is not None and job.model == policy.quorum.label:
        out["quorum"] = quorum_summary(result.meta.extras.get("quorum"))
    return out


def _review_decision(job: Job, policy: AttemptPolicy) -> dict[str, Any]:
    assert isinstance(job.case, DecisionCase) and job.model is not None
    mode = bench_decision_mode(job.mode, has_model=True)
    result = review_decision_input(job.case.decision(), mode=mode, model=job.model, base_url=policy.base_url,
                                   config=policy.config)
    answer = result.to_json()
    error: dict[str, Any] | None = dict(result.error) if result.error else None
    if error is None and result.meta.budget_exhausted:
        # The proposal was never judged: a failure of the review, not an INSUFFICIENT_EVIDENCE verdict.
        error = {"code": "BUDGET_EXCEEDED", "message": "the budget ran out before the proposal was judged"}
    return {"verdict": result.verdict if error is None else "INCONCLUSIVE",
            "model_verdict": result.verdict if error is None else "INCONCLUSIVE",
            "status": "error" if error else "ok", "error": error,
            "served_model": result.meta.model, "prompts": result.meta.prompts or {},
            "answer": {k: answer[k] for k in ("recommendation", "critical_assumptions", "material_risks",
                                              "better_alternative", "falsification_probe", "confidence")},
            "phases": result.meta.phases, "budget_exhausted": bool(result.meta.budget_exhausted)}


def blank_outcome(code: str | None = None, message: str = "") -> dict[str, Any]:
    """The outcome fields of an attempt that produced no review (an error `code`, when given)."""
    return {"verdict": "INCONCLUSIVE", "model_verdict": "INCONCLUSIVE", "status": "error",
            "error": {"code": code, "message": message} if code else None, "claims": [], "tool_calls": 0,
            "served_model": None, "prompts": {}}


def review_attempt(job: Job, policy: AttemptPolicy, meter: Meter) -> dict[str, Any]:
    """One attempt in this process: the review's outcome fields (never raises)."""
    out = blank_outcome()
    try:
        with wrapping_providers(lambda p: MeteredProvider(p, meter, policy.limiter)):
            out.update(_review_decision(job, policy) if isinstance(job.case, DecisionCase)
                       else _review_change(job, policy))
    except ShowcauseError as exc:
        out["error"] = {"code": exc.code, "message": exc.message}
    except Exception as exc:  # a crash in one review is a failed record, not a lost benchmark
        out["error"] = {"code": "INTERNAL_ERROR", "message": f"{type(exc).__name__}: {exc}"}
    error = out["error"]
    if error and meter.last_error and meter.last_error[0] == error["code"] and meter.last_error[1] is not None:
        # The HTTP status decides whether a server error is transient; the review's error does not carry it.
        out["error"] = {**error, "status": meter.last_error[1]}
    return out


def _carry(previous: dict[str, Any] | None) -> tuple[int, list[dict[str, Any]], dict[str, Any], float | None, float]:
    """Attempts, retries, usage, cost and seconds of an earlier session's transiently failed record."""
    if previous is None:
        return 0, [], {k: 0 for k in _USAGE_KEYS}, None, 0.0
    retries = [*previous.get("retries", []),
               {"attempt": previous.get("attempts", 1), "code": previous["error"]["code"],
                "status": previous["error"].get("status"), "message": previous["error"].get("message", ""),
                "seconds": previous.get("seconds"), "cost_usd": None, "backoff_s": None, "resumed": True}]
    usage = {k: int((previous.get("usage") or {}).get(k) or 0) for k in _USAGE_KEYS}
    return (int(previous.get("attempts", 1)), retries, usage, previous.get("cost_usd"),
            float(previous.get("seconds_total") or previous.get("seconds") or 0.0))


# How one attempt runs: here (review_attempt) or on a cluster's worker; it fills `meter` either way.
Attempt = Callable[[Job, AttemptPolicy, Meter], dict[str, Any]]


def run_job(job: Job, policy: AttemptPolicy, previous: dict[str, Any] | None = None,
            attempt: Attempt = review_attempt) -> dict[str, Any] | None:
    """The record for `job`, or None when not even its first attempt could start (the cost limit)."""
    attempts, retries, usage, cost, seconds_total = _carry(previous)
    price = policy.price(job.model)
    reserve = policy.reserve(job)
    sources: set[str] = {previous["cost_source"]} if previous and previous.get("cost_source") not in (None, "none") \
        else set()
    outcome: dict[str, Any] | None = None
    seconds = 0.0
    for retry in range(policy.retries + 1):
        if not policy.ledger.reserve(reserve, job.label()):
            if outcome is None:
                return None
            assert outcome["error"] is not None
            outcome["error"]["message"] += " (no retry: the cost limit stopped the run)"
            break
        attempts += 1
        meter = Meter(price)
        started = time.monotonic()
        current: dict[str, Any] | None = None
        try:
            current = attempt(job, policy, meter)
        finally:   # the ledger gets every attempt, even one cut short by an interrupt
            seconds = round(time.monotonic() - started, 3)
            spent = meter.summary()
            code = ((current.get("error") or {}).get("code") if current is not None else "INTERRUPTED")
            policy.ledger.settle(reserve, {
                "case": job.case.id, "mode": job.mode, "model": job.model, "run": job.run, "attempt": attempts,
                "code": code, **spent, "reserve_usd": round(reserve, 8),
                "charged_usd": round(charged_usd(spent, policy.unpriced_reserve), 8)})
        outcome = current
        seconds_total += seconds
        for k in _USAGE_KEYS:
            usage[k] += spent[k]
        if spent["cost_usd"] is not None:
            cost = (cost or 0.0) + spent["cost_usd"]
        if spent["cost_source"] != "none":
            sources.add(spent["cost_source"])
        error = outcome["error"]
        if not is_transient(error) or retry == policy.retries:
            break
        assert error is not None
        wait = policy.backoff(retry, error["code"])
        retries.append({"attempt": attempts, "code": error["code"], "status": error.get("status"),
                        "message": error["message"], "seconds": seconds, "cost_usd": spent["cost_usd"],
                        "backoff_s": wait})
        policy.sleep(wait)
    assert outcome is not None
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {"case": job.case.id, "mode": job.mode, "model": job.model, "run": job.run,
            "verdict": outcome["verdict"], "model_verdict": outcome["model_verdict"], "status": outcome["status"],
            "error": outcome.get("error"), "seconds": seconds, "seconds_total": round(seconds_total, 3),
            "usage": usage, "cost_usd": None if cost is None else round(cost, 8),
            "cost_source": sources.pop() if len(sources) == 1 else ("mixed" if sources else "none"),
            "attempts": attempts, "retries": retries, "claims": outcome["claims"],
            "tool_calls": outcome["tool_calls"], "served_model": outcome["served_model"],
            "prompts": outcome["prompts"], **_decision_fields(job, outcome),
            **({"quorum": outcome["quorum"]} if "quorum" in outcome else {})}


def _decision_fields(job: Job, outcome: dict[str, Any]) -> dict[str, Any]:
    """A decision record's extras: the shuffled mode order and what the reviewer answered."""
    return {"order": list(job.order), "answer": outcome.get("answer"), "phases": outcome.get("phases"),
            "budget_exhausted": outcome.get("budget_exhausted", False)} if job.order else {}
