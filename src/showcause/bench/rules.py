"""Pre-registered decision rules (`bench_rules/decision.toml`): which arms each question compares, on which
metric, and the thresholds that label the answer. The file's sha256 goes into every result.

A question's advantage is a - b (or b - a when lower is better) over the cases where both arms have a
successful run, with the paired cluster-bootstrap 95% interval of `bench/bootstrap.py`. Labels, in order:
clear signal, weak signal, no observed advantage, inconclusive.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from showcause.bench.bootstrap import Cluster, paired_bootstrap
from showcause.bench.metrics import BLOCKING
from showcause.core import tomlsafe
from showcause.core.decision import explain
from showcause.core.errors import InputError

__all__ = ["REPO_METRICS", "Rules", "answer_questions", "default_rules_path", "label", "load_rules"]

Rec = dict[str, Any]
Truth = dict[str, Any]
MetricTable = dict[str, tuple[Callable[[Truth], bool], Callable[[Rec, Truth], bool]]]

# What a repo-case bench's questions may measure (a decision bench's: decision_metrics.METRICS).
REPO_METRICS: MetricTable = {
    "recall": (lambda t: t["status"] != "correct", lambda r, t: r["verdict"] in t["acceptable"]),
    "intervention_recall": (lambda t: t["status"] != "correct", lambda r, t: r["verdict"] in BLOCKING),
    "false_intervention": (lambda t: t["status"] == "correct", lambda r, t: r["verdict"] in BLOCKING),
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Bootstrap(_Strict):
    resamples: int = Field(ge=100, le=100_000)
    seed: int


class Labels(_Strict):
    clear_min: float
    clear_lo: float
    weak_min: float
    weak_lo: float
    none_max: float


class Question(_Strict):
    id: str = Field(min_length=1)
    title: str = ""
    a: str = Field(min_length=1)
    b: str = Field(min_length=1)
    metric: str = Field(min_length=1)
    better: Literal["higher", "lower"] = "higher"
    main: bool = False
    guard: str | None = None
    guard_drop: float = 0.10

    @model_validator(mode="after")
    def _two_arms(self) -> Question:
        if self.a == self.b:
            raise ValueError(f"question {self.id} compares {self.a!r} with itself")
        return self


class Rules(_Strict):
    bootstrap: Bootstrap
    labels: Labels
    questions: list[Question] = Field(min_length=1)
    sha256: str = ""


def default_rules_path() -> Path:
    """The checkout's `bench_rules/decision.toml`, or the copy packaged into wheels."""
    here = Path(__file__).resolve()
    checkout = here.parents[3] / "bench_rules" / "decision.toml"
    return checkout if checkout.is_file() else here.with_name("decision_rules.toml")


def load_rules(path: Path, metrics: MetricTable) -> Rules:
    """Read and validate a rules file against the metrics the bench can measure; InputError when bad."""
    try:
        raw = path.read_bytes()
        doc = tomlsafe.load_file(path)
    except (OSError, ValueError) as exc:   # missing, unreadable, not TOML, or beyond the caps of tomlsafe
        raise InputError(f"--rules {path}: {exc}") from None
    try:
        rules = Rules.model_validate(doc)
    except ValidationError as exc:
        raise InputError(f"--rules {path}: {explain(exc)}") from None
    for q in rules.questions:
        unknown = [m for m in (q.metric, q.guard) if m is not None and m not in metrics]
        if unknown:
            raise InputError(f"--rules {path}: question {q.id} measures {unknown[0]!r}; this bench measures "
                             f"{', '.join(metrics)}")
    return rules.model_copy(update={"sha256": hashlib.sha256(raw).hexdigest()})


def label(advantage: float | None, lo: float | None, t: Labels) -> str:
    if advantage is None or lo is None:
        return "inconclusive"
    if advantage >= t.clear_min and lo > t.clear_lo:
        return "clear signal"
    if advantage >= t.weak_min and lo > t.weak_lo:
        return "weak signal"
    if advantage <= t.none_max:
        return "no observed advantage"
    return "inconclusive"


def _clusters(records: list[Rec], truth: dict[str, Truth], first: tuple[str, str | None],
              second: tuple[str, str | None], metric: tuple[Callable[[Truth], bool], Callable[[Rec, Truth], bool]]
              ) -> list[Cluster]:
    population, hit = metric
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in records:
        arm = (r["mode"], r.get("model"))
        if r["status"] != "ok" or arm not in (first, second) or not population(truth[r["case"]]):
            continue
        side = 0 if arm == first else 2
        counts[r["case"]][side] += hit(r, truth[r["case"]])
        counts[r["case"]][side + 1] += 1
    return [(c[0], c[1], c[2], c[3]) for _, c in sorted(counts.items()) if c[1] and c[3]]


def _pooled_difference(clusters: list[Cluster]) -> float | None:
    na, nb = sum(c[1] for c in clusters), sum(c[3] for c in clusters)
    return None if not na or not nb else sum(c[0] for c in clusters) / na - sum(c[2] for c in clusters) / nb


def _answer(q: Question, model: str | None, records: list[Rec], truth: dict[str, Truth], rules: Rules,
            metrics: MetricTable) -> dict[str, Any]:
    a, b = (q.a, model), (q.b, model)
    first, second = (a, b) if q.better == "higher" else (b, a)   # the advantage is always first - second
    boot = paired_bootstrap(_clusters(records, truth, first, second, metrics[q.metric]),
                            resamples=rules.bootstrap.resamples, seed=rules.bootstrap.seed)
    lo = boot["ci95"][0] if boot["ci95"] else None
    verdict = label(boot["difference"], lo, rules.labels)
    guard = None
    if q.guard is not None:
        guard = _pooled_difference(_clusters(records, truth, a, b, metrics[q.guard]))
        if guard is not None and guard < -q.guard_drop:
            verdict += f" with {q.guard.replace('_', '-')} loss"
    return {"id": q.id, "title": q.title, "main": q.main, "a": q.a, "b": q.b, "model": model, "metric": q.metric,
            "better": q.better, "advantage": boot["difference"], "ci95": boot["ci95"], "cases": boot["cases"],
            "first": boot["a"], "second": boot["b"], "resamples": boot["resamples"], "seed": boot["seed"],
            "guard": q.guard, "guard_difference": None if guard is None else round(guard, 6), "label": verdict}


def answer_questions(rules: Rules, records: list[Rec], truth: dict[str, Truth], models: list[str | None],
                     metrics: MetricTable) -> list[dict[str, Any]]:
    """Every question for every model; a question whose arms did not both run is labelled `not run`."""
    ran = {(r["mode"], r.get("model")) for r in records}
    out = []
    for model in models:
        for q in rules.questions:
            if (q.a, model) in ran and (q.b, model) in ran:
                out.append(_answer(q, model, records, truth, rules, metrics))
            else:
                out.append({"id": q.id, "title": q.title, "main": q.main, "a": q.a, "b": q.b, "model": model,
                            "metric": q.metric, "label": "not run"})
    return out
