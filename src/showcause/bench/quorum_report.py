"""The quorum against single members: recall, false interventions and cost per review of the `quorum` arm
and of every other model-driven arm of the bench (with no `--model`: the quorum's own members), and the
quorum's effective votes and escalations, from the records (`results.json` → `quorum_comparison`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from showcause.bench.cells import rate_cell
from showcause.bench.metrics import wilson

__all__ = ["quorum_comparison", "quorum_section"]

_MODE = "quorum"


def _votes(rs: list[dict[str, Any]]) -> dict[str, Any]:
    """Effective votes and escalation over a quorum arm's successful records."""
    summaries = [r["quorum"] for r in rs if r["status"] == "ok" and isinstance(r.get("quorum"), dict)]
    votes = [int(q["effective_votes"]) for q in summaries if isinstance(q.get("effective_votes"), int)]
    escalated = sum(len(q.get("tiers") or []) > 1 for q in summaries)
    lo, hi = wilson(escalated, len(summaries))
    return {"effective_votes": {"mean": round(sum(votes) / len(votes), 2) if votes else None,
                                "records": {str(k): n for k, n in sorted(Counter(votes).items())}},
            "escalated": {"k": escalated, "n": len(summaries), "rate": escalated / len(summaries) if summaries
                          else None, "ci95": [round(lo, 4), round(hi, 4)], "failed": 0}}


def quorum_comparison(records: list[dict[str, Any]], metrics: dict[str, Any]) -> list[dict[str, Any]] | None:
    """One row per arm, the quorum's first; None when no quorum arm ran (the results then have no such key)."""
    quorum = [label for label, m in metrics.items() if m["mode"] == _MODE]
    if not quorum:
        return None
    others = [label for label, m in metrics.items() if m["mode"] != _MODE and m["model"] is not None]
    rows = []
    for label in [*quorum, *others]:
        m = metrics[label]
        rs = [r for r in records if r["mode"] == m["mode"] and r.get("model") == m["model"]]
        g = m["gated"]
        row = {"arm": label, "mode": m["mode"], "model": m["model"], "ok": m["ok"], "failed": m["failed"],
               "recall": g["recall"]["all_defects"], "false_intervention": g["false_intervention"],
               "tokens_per_ok_review": m["tokens_per_ok_review"]["mean"],
               "cost_per_review_usd": m["cost_per_review_usd"] if set(m["cost_sources"]) - {"none"} else None,
               "cost_sources": m["cost_sources"]}
        rows.append(row | (_votes(rs) if m["mode"] == _MODE else {}))
    return rows


def _usd(v: float | None) -> str:
    return "unknown" if v is None else f"${v:.6f}"


def quorum_section(results: dict[str, Any]) -> list[str]:
    """The report's table of the quorum against its members (nothing when the bench ran no quorum)."""
    rows = results.get("quorum_comparison")
    if not rows:
        return []
    out = ["## The quorum against single members", "",
           "Each row is one arm over the same cases. Effective votes count the members of one review that gave "
           "different answers (members with the same verdict and the same findings count as one); escalated is "
           "the share of reviews where a higher tier ran. A cost is 'unknown' when no call of the arm could be "
           "priced.", "",
           "| arm | ok | recall | false interventions | tokens/review (mean) | cost/review | effective votes "
           "(mean; reviews by votes) | escalated |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        votes = r.get("effective_votes")
        vote_cell = "—" if votes is None else (
            f"{votes['mean']} ({', '.join(f'{k}: {n}' for k, n in votes['records'].items()) or 'none'})")
        escalated = rate_cell(r["escalated"]) if "escalated" in r else "—"
        failed = f" (+{r['failed']} failed)" if r["failed"] else ""
        out.append(f"| `{r['arm']}` | {r['ok']}{failed} | {rate_cell(r['recall'])} | "
                   f"{rate_cell(r['false_intervention'])} | {r['tokens_per_ok_review']} | "
                   f"{_usd(r['cost_per_review_usd'])} | {vote_cell} | {escalated} |")
    return [*out, ""]
