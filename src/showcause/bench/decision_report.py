"""`report.md` of a decision bench, and the lines `showcause bench` prints for one: per arm every metric with
its Wilson interval, then each pre-registered question with its label."""

from __future__ import annotations

from typing import Any

from showcause.bench.cells import advantage_cell, rate_cell

__all__ = ["ROWS", "question_cell", "render_decision_report", "summary_lines"]

# (metric key, what the report calls it)
ROWS = (("decision_accuracy", "decision accuracy (ok runs)"), ("strict_accuracy", "strict accuracy (failures wrong)"),
        ("correct_keep", "KEEP on correct"), ("defect_detection", "defect detection (MODIFY/REPLACE on flawed)"),
        ("exact_verdict", "exact verdict"), ("false_intervention", "false intervention (MODIFY/REPLACE on correct)"),
        ("severe_false_intervention", "severe false intervention (REPLACE on correct)"),
        ("insufficient_evidence", "INSUFFICIENT_EVIDENCE"), ("keyword_hit_rate", "keyword hit-rate (diagnostic)"))


def question_cell(q: dict[str, Any]) -> str:
    if q.get("advantage") is None:
        return q["label"]
    return f"{advantage_cell(q)}, {q['cases']} cases: {q['label']}"


def summary_lines(results: dict[str, Any]) -> list[str]:
    out = []
    for label, m in results["metrics"].items():
        acc, fi = m["decision_accuracy"], m["false_intervention"]
        out.append(f"{label}: accuracy {acc['k']}/{acc['n']}; detection {m['defect_detection']['k']}/"
                   f"{m['defect_detection']['n']}; false interventions {fi['k']}/{fi['n']}; failed {m['failed']}"
                   + (f"; not run {m['not_run']}" if m["not_run"] else ""))
    for q in results.get("questions", []):
        model = f", {q['model']}" if q.get("model") else ""
        out.append(f"{q['id']} {q['a']} vs {q['b']} ({q['metric']}{model}): {question_cell(q)}")
    return out


def _arms(results: dict[str, Any]) -> list[str]:
    arms = list(results["metrics"].values())
    out = ["| metric | " + " | ".join(f"{m['mode']}" + (f" · {m['model']}" if m["model"] else "") for m in arms)
           + " |", "|---|" + "---|" * len(arms)]
    for key, name in ROWS:
        out.append(f"| {name} | " + " | ".join(rate_cell(m[key]) for m in arms) + " |")
    for key, name in (("tokens", "tokens per ok review"), ("seconds", "seconds per ok review")):
        out.append(f"| {name} (mean / median) | " + " | ".join(f"{m[key]['mean']} / {m[key]['median']}" for m in arms)
                   + " |")
    out.append("| tokens relative to proposal_first | " + " | ".join(
        "n/a" if m["relative_tokens"] is None else f"{m['relative_tokens']:.2f}x" for m in arms) + " |")
    out.append("| records (ok / failed / not run) | " + " | ".join(
        f"{m['ok']} / {m['failed']} / {m['not_run']}" for m in arms) + " |")
    out.append("| failures by code | " + " | ".join(
        ", ".join(f"{k}: {v}" for k, v in m["failures_by_code"].items()) or "none" for m in arms) + " |")
    return out


def render_decision_report(results: dict[str, Any], command: str) -> str:
    truth = results["truth"]
    status: dict[str, int] = {}
    for t in truth.values():
        status[t["status"]] = status.get(t["status"], 0) + 1
    rules = results.get("rules") or {}
    budgets = "; ".join(f"{mode}: {b['tokens']} tokens, {b['completion_tokens']} completion tokens per call"
                        for mode, b in (results.get("mode_budgets") or {}).items())
    out = ["# Decision benchmark report", "",
           f"Case set `{results['case_set']}`: {len(truth)} decision cases "
           f"({', '.join(f'{k} {v}' for k, v in sorted(status.items()))}); modes {', '.join(results['modes'])}; "
           f"models {', '.join(results['models'])}; {results['runs']} run(s); wall time {results['wall_seconds']} s.",
           "", f"Reproduce: `{command}`", "",
           f"One configuration for every mode ({budgets}). The order of the modes is shuffled per case and run "
           f"(seed {results['seed']}; `mode_orders` in results.json).", "",
           f"Rules `{rules.get('path')}` (sha256 `{rules.get('sha256')}`).", "", "## Per arm", "", *_arms(results), "",
           "## Pre-registered questions", "",
           "| question | model | compares | metric | advantage [95% CI], label |", "|---|---|---|---|---|"]
    for q in results.get("questions", []):
        main = " (main)" if q.get("main") else ""
        out.append(f"| {q['id']}{main} | {q.get('model') or '—'} | {q['a']} vs {q['b']} | "
                   f"{q['metric'].replace('_', ' ')} | {question_cell(q)} |")
    out += ["", f"Review sheet: {results.get('review_sheet_rows', 0)} row(s) in review-sheet.csv (key: "
            "sheet-key.json; `showcause bench ingest`).", "", "## Per case", "",
            "| case | status | mode | model | run | verdict | tokens | seconds | status |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in results["records"]:
        t = truth[r["case"]]
        miss = "" if r["verdict"] in t["acceptable"] else " ✗"
        out.append(f"| {r['case']} | {t['status']} | {r['mode']} | {r.get('model') or '—'} | {r['run']} | "
                   f"{r['verdict']}{miss} | {r['usage']['total_tokens']} | {r['seconds']:.2f} | {r['status']}"
                   + (f" {r['error']['code']}" if r.get("error") else "") + " |")
    return "\n".join(out) + "\n"
