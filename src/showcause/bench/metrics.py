"""Benchmark metrics: recall by defect kind, false interventions, warning and flagged rates, gate stats.

Intervention = MODIFY or REPLACE. Failed runs stay in every denominator they belong to (a failed run
on a defect is a miss, on a correct case it is not an intervention) and are also counted by error code.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from typing import Any

__all__ = ["BLOCKING", "compute_metrics", "wilson"]

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


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "rate": (k / n) if n else None, "ci95": [round(lo, 4), round(hi, 4)]}


def _mode_metrics(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]], field: str) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    correct = []
    for r in records:
        t = truth[r["case"]]
        (correct if t["status"] == "correct" else by_kind[t["kind"]]).append(r)
    out: dict[str, Any] = {"recall": {}, "intervention_recall": {}}
    all_def = [r for rs in by_kind.values() for r in rs]
    for kind, rs in sorted(by_kind.items()):
        acceptable = [r for r in rs if r[field] in truth[r["case"]]["acceptable"]]
        out["recall"][kind] = _rate(len(acceptable), len(rs))
        out["intervention_recall"][kind] = _rate(sum(r[field] in BLOCKING for r in rs), len(rs))
    out["recall"]["all_defects"] = _rate(sum(r[field] in truth[r["case"]]["acceptable"] for r in all_def),
                                         len(all_def))
    out["false_intervention"] = _rate(sum(r[field] in BLOCKING for r in correct), len(correct))
    out["warning_on_correct"] = _rate(sum(r[field] == "WARNING" for r in correct), len(correct))
    out["flagged_on_correct"] = _rate(sum(r[field] in ("WARNING", *BLOCKING) for r in correct), len(correct))
    out["flagged_on_defects"] = _rate(sum(r[field] in ("WARNING", *BLOCKING) for r in all_def), len(all_def))
    return out


def compute_metrics(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per mode: gated metrics, the ungated counterfactual (model_verdict), gate, failure and cost stats."""
    metrics: dict[str, Any] = {}
    for mode in sorted({r["mode"] for r in records}):
        rs = [r for r in records if r["mode"] == mode]
        claims = [c for r in rs for c in r.get("claims", [])]
        gate = Counter(c["gate"]["status"] for c in claims)
        secs = sorted(r["seconds"] for r in rs if r["status"] == "ok")
        usage = Counter[str]()
        for r in rs:
            for k, v in (r.get("usage") or {}).items():
                if isinstance(v, int | float):
                    usage[k] += int(v)
        metrics[mode] = {
            "records": len(rs),
            "ok": sum(r["status"] == "ok" for r in rs),
            "failures_by_code": dict(Counter(r["error"]["code"] for r in rs if r["status"] == "error")),
            "gated": _mode_metrics(rs, truth, "verdict"),
            "ungated": _mode_metrics(rs, truth, "model_verdict"),
            "gate": {"claims": len(claims), "validated": gate["validated"], "downgraded": gate["downgraded"],
                     "unconfirmed": gate["unconfirmed"]},
            "seconds": {"total": round(sum(secs), 2), "mean": round(statistics.fmean(secs), 2) if secs else None,
                        "median": round(statistics.median(secs), 2) if secs else None,
                        "max": round(secs[-1], 2) if secs else None},
            "tokens": dict(usage),
            "cost_usd": round(sum(r.get("cost_usd") or 0.0 for r in rs), 6),
        }
    return metrics
