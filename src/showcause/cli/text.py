"""What the command line prints for a person: the review modes (`showcause modes`) and the telemetry summary
(`showcause outcomes`). The data comes from the service; the words are the command line's."""

from __future__ import annotations

from typing import Any

from showcause.service.catalog import DEFAULT_LABEL, mode_kinds

__all__ = ["modes_text", "outcomes_text"]

_TITLES = {"code_change": "A change (--case, --repo)", "decision": "A decision (--decision FILE)"}


def modes_text() -> str:
    """Every mode, by what it reviews, with what its spec declares."""
    out: list[str] = []
    for kind, specs in mode_kinds():
        out.append(f"{_TITLES[kind]}:")
        for spec in specs:
            facts = [f"needs {spec.model_option}" if spec.needs_model else "no model",
                     f"tools: {', '.join(spec.tools) or 'none'}"]
            if spec.default_for is not None:
                facts.append(f"the default {DEFAULT_LABEL[spec.default_for]}")
            out.append(f"  {spec.name} ({'; '.join(facts)})\n      {spec.description}")
    return "\n".join(out) + "\n"


def _per(cost: dict[str, Any]) -> str:
    if not cost["per"]:
        return "n/a (none yet)"
    usd = f", ${cost['usd']:.4f}" if cost["usd"] is not None else ""
    unpriced = f" ({cost['unpriced_reviews']} review(s) of unknown price left out of $)" \
        if cost["unpriced_reviews"] else ""
    return f"{cost['tokens']:g} tokens{usd}{unpriced}"


def outcomes_text(s: dict[str, Any]) -> str:
    """The summary for a person (`showcause outcomes`)."""
    kinds = ", ".join(f"{k} {n}" for k, n in s["by_kind"].items()) or "none"
    verdicts = ", ".join(f"{k} {n}" for k, n in s["by_verdict"].items()) or "none"
    lines = [f"telemetry log: {s['log']}",
             f"reviews: {s['reviews']} ({kinds}); failed or incomplete: {s['failed']}",
             f"verdicts: {verdicts}",
             f"with an outcome: {s['with_outcome']} (accepted {s['accepted']}, useful {s['useful']}, rework "
             f"required {s['rework_required']})",
             f"prevented bad changes: {s['prevented_bad_changes']}; missed (let through, rework later): "
             f"{s['missed']}",
             f"cost per useful review: {_per(s['cost_per_useful_review'])}",
             f"cost per prevented bad change: {_per(s['cost_per_prevented_bad_change'])}"]
    if s["unreadable_lines"] or s["outcomes_without_review"]:
        lines.append(f"skipped: {s['unreadable_lines']} unreadable line(s), {s['outcomes_without_review']} "
                     "outcome(s) of a review not in the log")
    return "\n".join(lines) + "\n"
