"""`showcause bench merge DIR... --out DIR`: the shards of one bench joined into the run they slice.

A bench of repo cases or of decision cases alike (a decision bench's metrics, questions, mode orders and
review sheet are computed again over all records). Shards must come from one plan (the same cases,
modes, models, runs, config, budgets and prompts), cover it exactly once between them and hold no record
twice; anything else is refused as bad input. The merged folder is a finished run like any other: its
results, checkpoint, run description and spend ledger.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from showcause.bench.assemble import Outcome, assemble_results, repo_outcome
from showcause.bench.attempts import record_key
from showcause.bench.costs import SpendLedger
from showcause.bench.decision_bench import decision_results
from showcause.bench.decision_metrics import METRICS
from showcause.bench.review_sheet import export_sheet
from showcause.bench.rules import REPO_METRICS, Rules, load_rules
from showcause.bench.runner import CHECKPOINT, LEDGER, RUN_INFO
from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["merge_shards"]

_ASSEMBLED = ("expected_records", "stopped", "not_run", "spend", "records", "kind", "rules", "metrics",
              "comparisons", "questions", "truth", "shard", "quorum_comparison", "mode_budgets", "mode_orders",
              "review_sheet_rows")


def _load(folder: Path) -> dict[str, Any]:
    path = folder / "results.json"
    try:
        doc = jsonsafe.load_file(path, max_bytes=jsonsafe.MAX_RECORD_BYTES * 64)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: no bench result ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("shard"), dict):
        raise InputError(f"{folder}: not a shard of a bench (run with --shard I/N)")
    return doc


def _check(folders: list[Path], docs: list[dict[str, Any]]) -> None:
    first = docs[0]["shard"]
    same = {k: v for k, v in first["identity"].items() if k != "shard"}
    for folder, doc in zip(folders, docs, strict=True):
        shard = doc["shard"]
        theirs = {k: v for k, v in shard["identity"].items() if k != "shard"}
        changed = sorted(k for k in same.keys() | theirs.keys() if same.get(k) != theirs.get(k))
        if doc.get("rules") != docs[0].get("rules"):
            changed.append("rules")
        if changed or shard["plan_digest"] != first["plan_digest"] or shard["count"] != first["count"]:
            what = ", ".join(changed) or "plan or shard count"
            raise InputError(f"{folder}: a shard of another bench ({what} differs from {folders[0]})")
    indices = [d["shard"]["index"] for d in docs]
    if len(set(indices)) != len(indices):
        raise InputError(f"shards overlap: shard index given twice among {sorted(indices)}")
    count = first["count"]
    missing = sorted(set(range(1, count + 1)) - set(indices))
    if missing:
        raise InputError(f"missing shard(s) {', '.join(f'{i}/{count}' for i in missing)} of this bench")
    seen: dict[tuple[Any, ...], Path] = {}
    for folder, doc in zip(folders, docs, strict=True):
        for record in doc["records"]:
            key = record_key(record)
            if key in seen:
                raise InputError(f"shards overlap: {key} is in {seen[key]} and {folder}")
            seen[key] = folder


def _rules(first: dict[str, Any], decision: bool) -> tuple[Rules | None, str | None]:
    """The shards' `--rules`, read again to answer its questions over all records; it must be unchanged."""
    named = first.get("rules")
    if not named:
        return None, None
    rules = load_rules(Path(named["path"]), METRICS if decision else REPO_METRICS)
    if rules.sha256 != named["sha256"]:
        raise InputError(f"{named['path']}: changed since the shards ran (its sha256 differs); merge refused")
    return rules, named["path"]


def _merged_ledger(folders: list[Path], out: Path, max_cost: float | None) -> SpendLedger:
    lines = [line for f in folders if (f / LEDGER).exists()
             for line in (f / LEDGER).read_text(encoding="utf-8").splitlines() if line.strip()]
    (out / LEDGER).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return SpendLedger(out / LEDGER, max_cost)


def _outcome(first: dict[str, Any], rules: Rules | None, rules_path: str | None, decision: bool) -> Outcome:
    truth = first["truth"]
    if decision:
        assert rules is not None and rules_path is not None   # a decision bench always answers its rules
        return lambda ordered, not_run: decision_results(ordered, truth, not_run, rules, rules_path, first["models"],
                                                         first["modes"], first["mode_budgets"])
    return lambda ordered, not_run: repo_outcome(ordered, truth, not_run, baseline=first.get("baseline"),
                                                 seed=first["seed"], rules=rules, rules_path=rules_path,
                                                 models=first["models"])


def merge_shards(folders: list[Path], out: Path) -> dict[str, Any]:
    """The merged `results.json` (also written, with `records.jsonl`, `run.json` and `spend.jsonl`, in `out`)."""
    if not folders:
        raise InputError("bench merge: name the shard folders")
    if any(f.resolve() == out.resolve() for f in folders):
        raise InputError("bench merge: --out must not be one of the shards")
    docs = [_load(f) for f in folders]
    _check(folders, docs)
    out.mkdir(parents=True, exist_ok=True)
    first = docs[0]
    provenance = {k: v for k, v in first.items() if k not in _ASSEMBLED}
    provenance["wall_seconds"] = max(float(d["wall_seconds"]) for d in docs)
    waited = [d["rate_limit_waited_s"] for d in docs if d.get("rate_limit_waited_s") is not None]
    provenance["rate_limit_waited_s"] = round(sum(waited), 3) if waited else None
    ledger = _merged_ledger(folders, out, first.get("max_cost_usd"))
    spend = ledger.totals() | {"charged_before_this_session_usd": round(
        sum(float(d["spend"].get("charged_before_this_session_usd") or 0.0) for d in docs), 8)}
    records = [r for d in docs for r in d["records"]]
    stopped = next((d["stopped"] for d in docs if d.get("stopped")), None)
    decision = first.get("kind") == "decision"
    rules, rules_path = _rules(first, decision)
    results = assemble_results(provenance, records, [tuple(k) for k in first["shard"]["plan"]], first["truth"],
                               stopped=stopped, spend=spend, outcome=_outcome(first, rules, rules_path, decision))
    if decision:
        results["review_sheet_rows"] = export_sheet(results["records"], first["truth"], out, first["seed"])
    identity = first["shard"]["identity"] | {"shard": None}
    (out / RUN_INFO).write_text(json.dumps(identity, indent=2), encoding="utf-8")
    (out / CHECKPOINT).write_text("".join(json.dumps(r) + "\n" for r in results["records"]), encoding="utf-8")
    (out / "results.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    return results
