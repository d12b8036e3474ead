"""Benchmark metrics per (mode, model): recall by defect kind, false interventions, warning and flagged
rates, the ungated counterfactual, gate statistics, failures, tokens, cost and latency.

Intervention = MODIFY or REPLACE. Every rate is over the *successful* runs of its population, and carries
beside it how many runs of that same population failed: a failure is never a silent miss nor a silent
drop. Each (mode, model) also states how many records were expected, succeeded, failed and never ran.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

__all__ = ["BLOCKING", "arm_label", "compute_metrics", "wilson"]

BLOCKING = ("MODIFY", "REPLACE")


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95% interval for k successes out of n (n = 0 gives (0, 1))."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def arm_label(mode: str, model: str | None) -> str:
    """How results name a (mode, model) pair: the mode alone when it runs without a model."""
    return mode if model is None else f"{mode} @ {model}"


def _rate(k: int, n: int, failed: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "rate": (k / n) if n else None, "ci95": [round(lo, 4), round(hi, 4)], "failed": failed}


def _count(rs: list[dict[str, Any]], field: str, hit: Any) -> dict[str, Any]:
    ok = [r for r in rs if r["status"] == "ok"]
    return _rate(sum(bool(hit(r[field], r)) for r in ok), len(ok), len(rs) - len(ok))


def _mode_metrics(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]], field: str) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    correct = []
    for r in records:
        t = truth[r["case"]]
        (correct if t["status"] == "correct" else by_kind[t["kind"]]).append(r)

    def acceptable(v: str, r: dict[str, Any]) -> bool:
        return v in truth[r["case"]]["acceptable"]

    def blocking(v: str, r: dict[str, Any]) -> bool:
        return v in BLOCKING

    def flagged(v: str, r: dict[str, Any]) -> bool:
        return v in ("WARNING", *BLOCKING)

    out: dict[str, Any] = {"recall": {}, "intervention_recall": {}}
    all_def = [r for rs in by_kind.values() for r in rs]
    for kind, rs in sorted(by_kind.items()):
        out["recall"][kind] = _count(rs, field, acceptable)
        out["intervention_recall"][kind] = _count(rs, field, blocking)
    out["recall"]["all_defects"] = _count(all_def, field, acceptable)
    out["false_intervention"] = _count(correct, field, blocking)
    out["warning_on_correct"] = _count(correct, field, lambda v, r: v == "WARNING")
    out["flagged_on_correct"] = _count(correct, field, flagged)
    out["flagged_on_defects"] = _count(all_def, field, flagged)
    return out


def _stats(values: list[float], digits: int = 2) -> dict[str, Any]:
    values = sorted(values)
    if not values:
        return {"total": 0, "mean": None, "median": None, "max": None}
    return {"total": round(sum(values), digits), "mean": round(statistics.fmean(values), digits),
            "median": round(statistics.median(values), digits), "max": round(values[-1], digits)}


def _arm_metrics(rs: list[dict[str, Any]], truth: dict[str, dict[str, Any]], not_run: int) -> dict[str, Any]:
    ok = [r for r in rs if r["status"] == "ok"]
    claims = [c for r in rs for c in r.get("claims", [])]
    gate = Counter(c["gate"]["status"] for c in claims)
    usage = Counter[str]()
    for r in rs:
        for k, v in (r.get("usage") or {}).items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                usage[k] += int(v)
    tokens_ok = [float((r.get("usage") or {}).get("prompt_tokens", 0) + (r.get("usage") or {}).get(
        "completion_tokens", 0)) for r in ok]
    cost = round(sum(r.get("cost_usd") or 0.0 for r in rs), 8)
    return {
        "mode": rs[0]["mode"] if rs else None, "model": rs[0].get("model") if rs else None,
        "expected": len(rs) + not_run, "records": len(rs), "ok": len(ok), "failed": len(rs) - len(ok),
        "not_run": not_run,
        "failures_by_code": dict(Counter(r["error"]["code"] for r in rs if r["status"] == "error")),
        "gated": _mode_metrics(rs, truth, "verdict"),
        "ungated": _mode_metrics(rs, truth, "model_verdict"),
        "gate": {"claims": len(claims), "validated": gate["validated"], "downgraded": gate["downgraded"],
                 "unconfirmed": gate["unconfirmed"]},
        "seconds": _stats([r["seconds"] for r in ok]),
        "tokens": dict(usage), "tokens_per_ok_review": _stats(tokens_ok, 1),
        "cost_usd": cost, "cost_per_review_usd": round(cost / len(rs), 8) if rs else None,
        "cost_sources": dict(Counter(r.get("cost_source", "none") for r in rs)),
        "attempts": sum(int(r.get("attempts", 1)) for r in rs),
        "retried_records": sum(bool(r.get("retries")) for r in rs),
    }


def compute_metrics(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]],
                    not_run: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """Per (mode, model), keyed by `arm_label`: gated and ungated rates, gate, failures, tokens, cost, time."""
    groups: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
    missing: Counter[tuple[str, str | None]] = Counter()
    for r in records:
        groups[(r["mode"], r.get("model"))].append(r)
    for j in not_run:
        missing[(j["mode"], j.get("model"))] += 1
    arms = list(dict.fromkeys([*groups, *missing]))   # first appearance: the plan's order of modes and models
    out = {}
    for mode, model in arms:
        m = _arm_metrics(groups[(mode, model)], truth, missing[(mode, model)])
        m["mode"], m["model"] = mode, model
        out[arm_label(mode, model)] = m
    return out
