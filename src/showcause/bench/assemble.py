"""`results.json` from a bench's records: one function for a run and for a merge of its shards, so a merged
bench and an unsharded one cannot drift apart."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from showcause.bench.attempts import record_key
from showcause.bench.bootstrap import RESAMPLES, compare_modes
from showcause.bench.metrics import compute_metrics
from showcause.bench.quorum_report import quorum_comparison
from showcause.bench.rules import REPO_METRICS, Rules, answer_questions

__all__ = ["Outcome", "assemble_results", "repo_outcome"]

# The metrics, comparisons and questions of the ordered records and of what never ran.
Outcome = Callable[[list[dict[str, Any]], list[dict[str, Any]]], dict[str, Any]]


def repo_outcome(records: list[dict[str, Any]], truth: dict[str, Any], not_run: list[dict[str, Any]], *,
                 baseline: str | None, seed: int, rules: Rules | None, rules_path: str | None,
                 models: list[str]) -> dict[str, Any]:
    """A repo-case bench's outcome: metrics, the comparisons with `baseline`, and the `--rules` questions."""
    arms: list[str | None] = list(models) or [None]
    metrics = compute_metrics(records, truth, not_run)
    quorum = quorum_comparison(records, metrics)
    return {"kind": "repo",
            **({"rules": {"path": rules_path, "sha256": rules.sha256}} if rules else {}),
            "metrics": metrics, **({"quorum_comparison": quorum} if quorum is not None else {}),
            "comparisons": compare_modes(records, truth, baseline, seed=seed, resamples=RESAMPLES)
            if baseline else [],
            "questions": answer_questions(rules, records, truth, arms, REPO_METRICS) if rules else []}


def assemble_results(provenance: dict[str, Any], records: list[dict[str, Any]], plan: Sequence[tuple[Any, ...]],
                     truth: dict[str, Any], *, stopped: dict[str, Any] | None, spend: dict[str, Any],
                     outcome: Outcome) -> dict[str, Any]:
    """`records` in `plan` order, what never ran, and the `outcome` of both."""
    order = {tuple(k): i for i, k in enumerate(plan)}
    ordered = sorted(records, key=lambda r: order[record_key(r)])
    done = {record_key(r) for r in ordered}
    not_run = [{"case": k[0], "mode": k[1], "model": k[2], "run": k[3]} for k in plan if tuple(k) not in done]
    return {
        **provenance, "expected_records": len(plan), "stopped": stopped, "not_run": not_run, "spend": spend,
        "records": ordered, **outcome(ordered, not_run), "truth": truth,
    }
