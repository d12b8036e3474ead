"""Paired cluster bootstrap of rate differences between a mode and the `--baseline` mode.

Runs of one case are correlated, so the case is the unit of resampling: a resample draws as many cases
as there are, with replacement, and recomputes both modes' *pooled* rates (successes over successful runs)
over the same drawn cases. The 95% interval is the 2.5% and 97.5% empirical quantiles (floor index) of
the differences. Only cases where both modes have at least one successful run take part, so every draw
is paired; how many cases that leaves is reported beside the interval.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from typing import Any

from showcause.bench.metrics import BLOCKING

__all__ = ["RESAMPLES", "compare_modes", "paired_bootstrap"]

RESAMPLES = 5000
Cluster = tuple[int, int, int, int]   # (k_a, n_a, k_b, n_b) for one case


def paired_bootstrap(clusters: list[Cluster], *, resamples: int = RESAMPLES, seed: int = 42) -> dict[str, Any]:
    """Difference rate(a) - rate(b) with its bootstrap 95% interval; None values when there is no data."""
    ka, na = sum(c[0] for c in clusters), sum(c[1] for c in clusters)
    kb, nb = sum(c[2] for c in clusters), sum(c[3] for c in clusters)
    out: dict[str, Any] = {"cases": len(clusters), "a": {"k": ka, "n": na}, "b": {"k": kb, "n": nb},
                           "difference": None, "ci95": None, "resamples": resamples, "seed": seed}
    if not clusters or na == 0 or nb == 0:
        return out
    out["difference"] = round(ka / na - kb / nb, 6)
    rng = random.Random(seed)
    diffs: list[float] = []
    for _ in range(resamples):
        sa = sn = tb = tn = 0
        for c in rng.choices(clusters, k=len(clusters)):
            sa += c[0]
            sn += c[1]
            tb += c[2]
            tn += c[3]
        diffs.append(sa / sn - tb / tn)   # every cluster has runs on both sides, so sn, tn > 0
    diffs.sort()
    lo = diffs[math.floor(0.025 * len(diffs))]
    hi = diffs[min(len(diffs) - 1, math.floor(0.975 * len(diffs)))]
    out["ci95"] = [round(lo, 6), round(hi, 6)]
    return out


def _clusters(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]], a: tuple[str, str | None],
              b: tuple[str, str | None], metric: str) -> list[Cluster]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in records:
        arm = (r["mode"], r.get("model"))
        if r["status"] != "ok" or arm not in (a, b):
            continue
        t = truth[r["case"]]
        if metric == "false_intervention":
            if t["status"] != "correct":
                continue
            hit = r["verdict"] in BLOCKING
        else:
            if t["status"] == "correct":
                continue
            hit = r["verdict"] in t["acceptable"]
        c = counts[r["case"]]
        side = 0 if arm == a else 2
        c[side] += hit
        c[side + 1] += 1
    return [(c[0], c[1], c[2], c[3]) for _, c in sorted(counts.items()) if c[1] and c[3]]


def compare_modes(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]], baseline: str, *,
                  seed: int = 42, resamples: int = RESAMPLES) -> list[dict[str, Any]]:
    """Every other (mode, model) against the baseline with the same model (a model-free side pairs with
    every model): false-intervention and recall differences, mode - baseline."""
    arms = list(dict.fromkeys((r["mode"], r.get("model")) for r in records))
    out = []
    for mode, model in arms:
        if mode == baseline:
            continue
        bases = [(m, mo) for m, mo in arms if m == baseline and (mo == model or mo is None or model is None)]
        for base, metric in ((base, metric) for base in bases for metric in ("false_intervention", "recall")):
            result = paired_bootstrap(_clusters(records, truth, (mode, model), base, metric), resamples=resamples,
                                      seed=seed)
            out.append({"mode": mode, "model": model, "baseline": baseline, "baseline_model": base[1],
                        "metric": metric, **result})
    return out
