"""`showcause bench compare DIR…`: several decision-bench runs (models, sessions) side by side, each arm
with its rates and each question with its label. It ranks nothing and names no winner: runs on other
case sets, rules or budgets are not comparable, so those are shown beside them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from showcause.bench.cells import rate_cell
from showcause.bench.decision_report import question_cell
from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["compare_runs", "load_results"]

_COLUMNS = (("decision_accuracy", "accuracy"), ("strict_accuracy", "strict"), ("correct_keep", "KEEP on correct"),
            ("defect_detection", "detection"), ("false_intervention", "false intervention"),
            ("severe_false_intervention", "severe"), ("insufficient_evidence", "insufficient evidence"))


def load_results(folder: Path) -> dict[str, Any]:
    path = Path(folder) / "results.json"
    try:
        data = jsonsafe.load_file(path, max_bytes=jsonsafe.MAX_TOOL_JSON_BYTES)
    except FileNotFoundError:
        raise InputError(f"{folder}: no results.json (not a bench output folder)") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or data.get("kind") != "decision":
        raise InputError(f"{path}: not the results of a decision bench")
    return data


def compare_runs(folders: list[Path]) -> str:
    """A markdown text: what each run was, its arms' rates, its questions' labels."""
    if not folders:
        raise InputError("bench compare needs at least one bench output folder")
    runs = [(str(f), load_results(f)) for f in folders]
    out = ["| run | case set | models | runs | rules sha256 |", "|---|---|---|---|---|"]
    out += [f"| {name} | `{r['case_set']}` | {', '.join(r['models'])} | {r['runs']} | "
            f"`{(r.get('rules') or {}).get('sha256', '')[:12]}` |" for name, r in runs]
    out += ["", "| run | arm | " + " | ".join(title for _k, title in _COLUMNS) + " | tokens (median) | seconds "
            "(median) | failed |", "|---|---|" + "---|" * (len(_COLUMNS) + 3)]
    for name, r in runs:
        for arm, m in r["metrics"].items():
            out.append(f"| {name} | {arm} | " + " | ".join(rate_cell(m[k]) for k, _t in _COLUMNS)
                       + f" | {m['tokens']['median']} | {m['seconds']['median']} | {m['failed']} |")
    out += ["", "| run | question | model | compares | advantage [95% CI], label |", "|---|---|---|---|---|"]
    for name, r in runs:
        out += [f"| {name} | {q['id']} | {q.get('model') or '—'} | {q['a']} vs {q['b']} ({q['metric']}) | "
                f"{question_cell(q)} |" for q in r.get("questions", [])]
    return "\n".join(out) + "\n"
