"""Decision-benchmark metrics per (mode, model), each rate with its Wilson 95% interval.

Populations: correct cases; flawed cases (materially or fundamentally flawed); every case. A rate is over
the successful runs of its population and states how many runs of it failed; `strict_accuracy` alone
counts a failure as a wrong answer. Intervention = MODIFY or REPLACE: a false intervention is one on a
correct case, a severe one is REPLACE there. The keyword hit-rate (a flawed-case answer naming any of its
case's diagnostic keywords) is a diagnostic, never a score.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from showcause.bench.decision_casefile import FLAWED
from showcause.bench.metrics import BLOCKING, arm_label, wilson

__all__ = ["METRICS", "answer_text", "decision_metrics", "keyword_hit"]

Rec = dict[str, Any]
Truth = dict[str, Any]
# name -> (population, hit): what each rate counts; the rules (bench/rules.py) name these too.
METRICS: dict[str, tuple[Callable[[Truth], bool], Callable[[Rec, Truth], bool]]] = {
    "decision_accuracy": (lambda t: True, lambda r, t: r["verdict"] in t["acceptable"]),
    "exact_verdict": (lambda t: True, lambda r, t: r["verdict"] == t["acceptable"][0]),
    "correct_keep": (lambda t: t["status"] == "correct", lambda r, t: r["verdict"] == "KEEP"),
    "defect_detection": (lambda t: t["status"] in FLAWED, lambda r, t: r["verdict"] in BLOCKING),
    "false_intervention": (lambda t: t["status"] == "correct", lambda r, t: r["verdict"] in BLOCKING),
    "severe_false_intervention": (lambda t: t["status"] == "correct", lambda r, t: r["verdict"] == "REPLACE"),
    "insufficient_evidence": (lambda t: True, lambda r, t: r["verdict"] == "INSUFFICIENT_EVIDENCE"),
}


def answer_text(record: Rec) -> str:
    """What a reviewer wrote: recommendation, assumptions, risks, alternative and probe, as one text."""
    a = record.get("answer") or {}
    probe = a.get("falsification_probe") or {}
    parts = [a.get("recommendation") or "", *(a.get("critical_assumptions") or []), *(a.get("material_risks") or []),
             a.get("better_alternative") or "", probe.get("description") or "", probe.get("expected_signal") or ""]
    return "\n".join(p for p in parts if p)


def keyword_hit(record: Rec, keywords: Iterable[str]) -> bool:
    text = answer_text(record).lower()
    return any(re.search(rf"(?<!\w){re.escape(k.lower())}(?!\w)", text) for k in keywords if k.strip())


def _rate(k: int, n: int, failed: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 6) if n else None, "ci95": [round(lo, 4), round(hi, 4)],
            "failed": failed}


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"mean": None, "median": None}
    return {"mean": round(statistics.fmean(values), 2), "median": round(statistics.median(values), 2)}


def _arm(rs: list[Rec], truth: dict[str, Truth], not_run: int) -> dict[str, Any]:
    ok = [r for r in rs if r["status"] == "ok"]
    out: dict[str, Any] = {"expected": len(rs) + not_run, "records": len(rs), "ok": len(ok),
                           "failed": len(rs) - len(ok), "not_run": not_run}
    for name, (population, hit) in METRICS.items():
        pop = [r for r in rs if population(truth[r["case"]])]
        good = [r for r in pop if r["status"] == "ok"]
        out[name] = _rate(sum(hit(r, truth[r["case"]]) for r in good), len(good), len(pop) - len(good))
    acc = out["decision_accuracy"]
    out["strict_accuracy"] = _rate(acc["k"], len(rs), 0)
    flawed = [r for r in ok if truth[r["case"]]["status"] in FLAWED]
    out["keyword_hit_rate"] = _rate(sum(keyword_hit(r, truth[r["case"]]["keywords"]) for r in flawed),
                                    len(flawed), 0)
    out["tokens"] = _stats([float(r["usage"]["total_tokens"]) for r in ok])
    out["seconds"] = _stats([float(r["seconds"]) for r in ok])
    out["failures_by_code"] = dict(Counter(r["error"]["code"] for r in rs if r["status"] == "error"))
    out["cost_usd"] = round(sum(r.get("cost_usd") or 0.0 for r in rs), 8)
    return out


def decision_metrics(records: list[Rec], truth: dict[str, Truth], not_run: Iterable[Rec] = (),
                     reference: str = "proposal_first", modes: Iterable[str] = ()) -> dict[str, Any]:
    """Per (mode, model), keyed by `arm_label`, in the order of ``modes`` (the records' order is shuffled);
    `relative_tokens` is the arm's mean tokens per successful review over those of ``reference`` with the
    same model (None without it)."""
    groups: dict[tuple[str, str | None], list[Rec]] = defaultdict(list)
    missing: Counter[tuple[str, str | None]] = Counter()
    for r in records:
        groups[(r["mode"], r.get("model"))].append(r)
    for j in not_run:
        missing[(j["mode"], j.get("model"))] += 1
    rank = {m: i for i, m in enumerate(modes)}
    arms = sorted(dict.fromkeys([*groups, *missing]), key=lambda a: rank.get(a[0], len(rank)))   # stable: models
    out: dict[str, Any] = {}
    for mode, model in arms:
        out[arm_label(mode, model)] = {"mode": mode, "model": model,
                                       **_arm(groups[(mode, model)], truth, missing[(mode, model)])}
    for m in out.values():
        ref = out.get(arm_label(reference, m["model"]))
        base = ref["tokens"]["mean"] if ref else None
        m["relative_tokens"] = round(m["tokens"]["mean"] / base, 4) if base and m["tokens"]["mean"] else None
    return out
