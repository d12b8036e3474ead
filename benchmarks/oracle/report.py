"""The oracle's figures from its results: agreement, selection recall and time ratios, as a Markdown table."""

from __future__ import annotations

import html
import statistics
from collections import defaultdict
from typing import Any

__all__ = ["compare", "key", "table"]


def key(test: str) -> str:
    """One spelling for a test id from either side: `a/b.py::C::t[p]` -> `a.b.C.t[p]`; a doctest either side
    names by its own name."""
    if "::load_tests::" in test:   # the review's item for a test unittest's load_tests adds (a doctest)
        test = "doctest::" + test.split("::load_tests::", 1)[1]
    if "::" in test or test.endswith(".py"):
        file, *rest = test.split("::")
        if not file.endswith(".py"):   # JavaScript: mocha joins titles with spaces, the others with " > "
            return " ".join([file, *(r.replace(" > ", " ") for r in rest)])
        return ".".join([file.removesuffix(".py").replace("/", "."), *rest])
    return test


def compare(truth: list[str], blocked: list[str], ran: list[str]) -> dict[str, Any]:
    """Missed: broken tests no block covers; false: blocks that cover no broken test. A block on a whole file
    (it no longer collects) covers every broken test of that file."""
    # node's JUnit escapes a title's quotes twice (`&quot;not&quot;`): the title is what the test file says.
    truth = [html.unescape(t) for t in truth]
    if any(t.startswith("::") for t in truth):   # node's JUnit names no file: compare by titles alone
        truth, blocked = [t.split("::", 1)[1] for t in truth], [b.split("::", 1)[-1] for b in blocked]
        ran = [r.split("::", 1)[-1] for r in ran if "::" in r] + [""] * any("::" not in r for r in ran)
    truth_k = {key(t) for t in truth}
    blocked_k = {key(t) for t in blocked}
    ran_k = [key(r) for r in ran]

    def covers(outer: str, test: str) -> bool:
        return outer == "" or test == outer or test.startswith((outer + ".", outer + "[", outer + " "))

    missed = sorted(t for t in truth_k if not any(covers(b, t) for b in blocked_k))
    false = sorted(b for b in blocked_k if not any(covers(b, t) for t in truth_k))
    # A broken test the review blocked on was run, whatever its id says of its file (a doctest's names none).
    selected = sum(1 for t in truth_k if any(covers(r, t) for r in ran_k) or any(covers(b, t) for b in blocked_k))
    return {"missed": missed, "false": false, "selected": selected, "broken": len(truth_k),
            "fail_open": bool(truth_k) and not blocked_k, "false_block": bool(false)}


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def table(rows: list[dict[str, Any]], baselines: dict[str, dict[str, float]]) -> str:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:   # compared again: the results keep what each side said, the comparison is this code's
        row["compare"] = compare(row["truth"], row["review"]["blocked"], row["review"]["ran"])
        by[row["project"]].append(row)
    lines = ["| project | changes | breaking | missed (fail-open) | false blocks | broken tests not cited | "
             "other blocks | left out | selection recall | own run + typecheck | review cold | review warm | "
             "cold x | warm x |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    totals = defaultdict(int)
    colds: list[float] = []
    warms: list[float] = []
    for name in sorted(by):
        judged = [r for r in by[name] if not r.get("excluded")]
        base = baselines.get(name, {})
        own = base.get("suite_s", 0.0) + base.get("typecheck_s", 0.0)
        cold = [r["review"]["cold_s"] for r in judged if r["review"].get("cold_s")]
        warm = [r["review"]["seconds"] for r in judged]
        c = {"changes": len(judged), "breaking": sum(1 for r in judged if r["truth"]),
             "missed": sum(1 for r in judged if r["compare"]["fail_open"]),
             "false": sum(1 for r in judged if r["compare"]["false_block"]),
             "uncited": sum(1 for r in judged if r["compare"]["missed"] and not r["compare"]["fail_open"]),
             "other": sum(1 for r in judged if r["review"]["other_blocks"] and not r["truth"]),
             "excluded": len(by[name]) - len(judged),
             "selected": sum(r["compare"]["selected"] for r in judged),
             "broken": sum(r["compare"]["broken"] for r in judged)}
        for k, v in c.items():
            totals[k] += v
        cold_x = [s / own for s in cold] if own else []
        warm_x = [s / own for s in warm] if own else []
        colds.extend(cold_x)
        warms.extend(warm_x)
        recall = f"{c['selected']}/{c['broken']}" if c["broken"] else "-"
        lines.append(f"| {name} | {c['changes']} | {c['breaking']} | {c['missed']} | {c['false']} | {c['uncited']} | "
                     f"{c['other']} | "
                     f"{c['excluded']} | {recall} | {own:.1f} s | {_median(cold)} s | {_median(warm)} s | "
                     f"{_median(cold_x)} | {_median(warm_x)} |")
    lines.append(f"| **all ({len(by)} projects)** | {totals['changes']} | {totals['breaking']} | {totals['missed']} | "
                 f"{totals['false']} | {totals['uncited']} | {totals['other']} | {totals['excluded']} | "
                 f"{totals['selected']}/{totals['broken']} | | | | {_median(colds)} | {_median(warms)} |")
    return "\n".join(lines)
