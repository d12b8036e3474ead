"""Renderers for decision reviews: json, markdown and text (sarif and github need code locations)."""

from __future__ import annotations

import json
from collections.abc import Callable

from showcause.core.decision_result import DecisionResult
from showcause.render.common import one_line

__all__ = ["DECISION_FORMATS", "render_decision"]

_ICON = {"KEEP": "✅", "MODIFY": "✏️", "REPLACE": "🔁", "INSUFFICIENT_EVIDENCE": "❔", "INCONCLUSIVE": "❓"}


def _json(r: DecisionResult) -> str:
    return json.dumps(r.to_json(), indent=2, ensure_ascii=False) + "\n"


def _blindness_note(r: DecisionResult) -> str | None:
    b = r.meta.blindness
    if not b.get("warning"):
        return None
    return (f"blindness warning: {b['score']:.0%} of the proposal's {b['n']}-word sequences also appear in the "
            "fields the blind phase read")


def _markdown(r: DecisionResult) -> str:
    head = f"{_ICON.get(r.verdict, '')} **showcause decision review: {r.verdict}** ({r.meta.mode})"
    if r.error:
        return (f"{head} — the review itself failed (`{r.error['code']}`): {one_line(r.error['message'])}. "
                "This is not a pass.\n")
    out = [head, "", one_line(r.recommendation, 2000)]
    if r.confidence is not None:
        out += ["", f"Confidence: {r.confidence:.2f}"]
    for title, items in (("Critical assumptions", r.critical_assumptions), ("Material risks", r.material_risks)):
        if items:
            out += ["", f"**{title}**", *(f"- {one_line(x, 600)}" for x in items)]
    if r.better_alternative:
        out += ["", f"**Better alternative:** {one_line(r.better_alternative, 1500)}"]
    if r.falsification_probe:
        p = r.falsification_probe
        out += ["", f"**Falsification probe:** {one_line(p['description'], 800)}",
                f"Expected signal if wrong: {one_line(p['expected_signal'], 800)}"]
    if r.meta.budget_exhausted:
        out += ["", "_The token budget ran out before the proposal was reviewed; this is not a pass._"]
    note = _blindness_note(r)
    if note:
        out += ["", f"_{note}_"]
    return "\n".join(out) + "\n"


def _text(r: DecisionResult) -> str:
    m = r.meta
    out = [f"verdict: {r.verdict}", r.recommendation,
           f"mode {m.mode}, {m.phases} phase(s), {m.seconds} s"
           + (f", confidence {r.confidence:.2f}" if r.confidence is not None else "")]
    if r.error:
        out.append(f"error {r.error['code']}: {r.error['message']}")
    for title, items in (("assumption", r.critical_assumptions), ("risk", r.material_risks)):
        out += [f"- {title}: {x}" for x in items]
    if r.better_alternative:
        out.append(f"- better alternative: {r.better_alternative}")
    if r.falsification_probe:
        out.append(f"- probe: {r.falsification_probe['description']} "
                   f"(signal: {r.falsification_probe['expected_signal']})")
    if m.budget_exhausted:
        out.append("budget exhausted before the reveal: the proposal was not reviewed")
    note = _blindness_note(r)
    if note:
        out.append(note)
    return "\n".join(out) + "\n"


DECISION_FORMATS: dict[str, Callable[[DecisionResult], str]] = {"json": _json, "markdown": _markdown, "text": _text}


def render_decision(result: DecisionResult, fmt: str) -> str:
    return DECISION_FORMATS[fmt](result)
