"""What a bench over decision cases adds to the one runner (bench/runner.py): its cases and truth, its plan
(the order of the modes shuffled per case and run with a seeded PRNG, and recorded), its metrics and the
pre-registered questions.

Every mode runs under one configuration: the same model, the same policy (so the same review budget and
completion tokens per call) and the same provider settings; the budget of each mode is in the results.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from showcause.bench.attempts import Job
from showcause.bench.decision_casefile import (
    DecisionCase,
    decision_case_set_hash,
    find_decision_cases,
    load_sound_case,
)
from showcause.bench.decision_metrics import METRICS, decision_metrics
from showcause.bench.rules import Rules, answer_questions
from showcause.core.errors import InputError

__all__ = ["decision_cases", "decision_outcome", "decision_results", "decision_truth", "mode_order", "plan_decisions"]


def decision_cases(root: Path) -> tuple[list[DecisionCase], str]:
    paths = find_decision_cases(root)
    if not paths:
        raise InputError(f"{root}: no decision cases")
    return [load_sound_case(p) for p in paths], decision_case_set_hash(paths)


def decision_truth(cases: list[DecisionCase]) -> dict[str, dict[str, Any]]:
    """What the metrics, the rules and the review sheet need of each case (never sent to a model)."""
    return {c.id: {**c.doc.truth.model_dump(), "keywords": list(c.doc.diagnostics.keywords), "title": c.doc.title,
                   "category": c.doc.category, "source": c.doc.source.kind} for c in cases}


def mode_order(modes: tuple[str, ...], case: str, run: int, seed: int) -> tuple[str, ...]:
    """The order of the modes for one (case, run): a PRNG seeded by (seed, case, run), so a resumed or
    repeated run plans the same order whatever else changed."""
    order = list(modes)
    random.Random(f"{seed}:{case}:{run}").shuffle(order)
    return tuple(order)


def plan_decisions(cases: list[DecisionCase], modes: tuple[str, ...], models: tuple[str, ...], runs: int,
                   seed: int) -> list[Job]:
    jobs = []
    for run in range(1, runs + 1):
        for case in cases:
            order = mode_order(modes, case.id, run, seed)
            jobs += [Job(case, mode, model, run, order) for mode in order for model in models]
    return jobs


def decision_outcome(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]], not_run: list[dict[str, Any]],
                     rules: Rules, models: list[str], modes: list[str]) -> dict[str, Any]:
    """The metrics per arm (in the order of ``modes``) and the answers to the rules' questions."""
    return {"metrics": decision_metrics(records, truth, not_run, modes=modes),
            "questions": answer_questions(rules, records, truth, list(models), METRICS)}


def decision_results(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]], not_run: list[dict[str, Any]],
                     rules: Rules, rules_path: str, models: list[str], modes: list[str],
                     budgets: dict[str, Any]) -> dict[str, Any]:
    """What a decision bench's results add to the records: the outcome, each mode's budget and the recorded
    mode orders (of a whole run or of merged shards alike)."""
    return {"kind": "decision", "rules": {"path": rules_path, "sha256": rules.sha256},
            **decision_outcome(records, truth, not_run, rules, models, modes), "mode_budgets": budgets,
            "mode_orders": {f"{r['case']}#{r['run']}": r["order"] for r in records if r.get("order")},
            "comparisons": []}
