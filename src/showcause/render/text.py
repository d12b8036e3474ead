"""Plain terminal output."""

from __future__ import annotations

from showcause.core.result import ReviewResult
from showcause.render.common import claim_location, dropped_note, from_probes, listed_artifacts, notes

__all__ = ["render_text"]


def render_text(result: ReviewResult) -> str:
    m = result.meta
    # What a reader must know before the verdict (an unsandboxed run) comes first.
    out = [f"WARNING: {w}" for w in m.warnings]
    out += [f"verdict: {result.verdict}" + (f" (model said {result.model_verdict})"
                                            if result.model_verdict != result.verdict else ""),
           f"{result.summary}",
           f"mode {m.mode}, {len(result.tool_calls)} tool calls, {m.seconds} s, isolation {m.isolation}"]
    out += [f"note: {n}" for n in notes(result) if n not in result.summary]
    if result.error:
        out.append(f"error {result.error['code']}: {result.error['message']}")
    for i, c in enumerate(result.claims, 1):
        where = claim_location(c)
        loc = f" [{where[0]}{':' + str(where[1]) if where[1] else ''}]" if where else ""
        source = ", from the probes" if from_probes(result, c) else ""
        out.append(f"{i}. {c.verdict} ({c.status}{source}){loc}: {c.claim.claim}")
        listed, rest = listed_artifacts(c)
        for a in listed:
            out.append(f"   {a.tool_call} {a.type} {a.file}{':' + str(a.line) if a.line else ''}: {a.detail}")
        if rest:
            out.append(f"   {rest}")
        for r in c.reasons:
            out.append(f"   - {r}")
    note = dropped_note(result)
    if note:
        out.append(note)
    return "\n".join(out) + "\n"
