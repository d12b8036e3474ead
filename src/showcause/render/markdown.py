"""Markdown fit for a PR comment. Silent by default: a KEEP is one line.

Everything a pull request or a model wrote (the summary, claims, locations, failure text, tool output) goes
through render/escape.py: it renders as the text it is, never as a mention, an image, a link or HTML."""

from __future__ import annotations

from showcause.core.escape import md_code_block, md_code_span, md_text
from showcause.core.result import ReviewResult
from showcause.render.common import claim_location, dropped_note, from_probes, listed_artifacts, notes, one_line

__all__ = ["render_markdown"]

_ICON = {"KEEP": "✅", "WARNING": "⚠️", "MODIFY": "⛔", "REPLACE": "⛔", "INCONCLUSIVE": "❓"}
_STATUS = {"validated": "validated — blocks", "downgraded": "downgraded to warning (no qualifying evidence)",
           "unconfirmed": "warning"}


def render_markdown(result: ReviewResult) -> str:
    # What a reader must know before the verdict (an unsandboxed run) is the first line of the comment.
    warned = "".join(f"> ⚠️ **{md_text(one_line(w, 600))}**\n>\n" for w in result.meta.warnings)
    said = "".join(f"\n_Note: {md_text(one_line(n, 600))}._\n" for n in notes(result))
    return warned + _body(result) + said


def _body(result: ReviewResult) -> str:
    v = result.verdict
    mode = result.meta.mode
    if v == "KEEP":
        return f"{_ICON[v]} **showcause: KEEP** — nothing the change introduced blocks it ({mode}).\n"
    if v == "INCONCLUSIVE":
        err = result.error or {}
        return (f"{_ICON[v]} **showcause: INCONCLUSIVE** — the review itself failed "
                f"({md_code_span(err.get('code', ''))}): {md_text(one_line(err.get('message', '')))}. "
                "This is not a pass.\n")
    out = [f"{_ICON[v]} **showcause: {v}** ({mode}) — {md_text(one_line(result.summary))}", ""]
    for i, c in enumerate(result.claims, 1):
        where = claim_location(c)
        loc = f" {md_code_span(where[0] + (':' + str(where[1]) if where[1] else ''))}" if where else ""
        out.append(f"{i}. **{c.verdict}**{loc} — {md_text(one_line(c.claim.claim, 600))}  ")
        said = f"; model said {c.claim.verdict}" if c.claim.verdict != c.verdict else ""
        found = "; found by the mechanical probes" if from_probes(result, c) else ""
        out.append(f"   _{_STATUS[c.status]}_{said}{found}")
        listed, rest = listed_artifacts(c)
        for a in listed:
            place = a.file + (f":{a.line}" if a.line else "")
            out.append(f"   - {md_code_span(a.type)} {md_text(place)} ({md_text(a.tool_call)}): "
                       f"{md_text(one_line(a.detail, 200))}")
        if rest:
            out.append(f"   - {md_text(rest)}")
        if c.claim.fix:
            out.append(f"   - suggested fix: {md_text(one_line(c.claim.fix, 300))}")
    note = dropped_note(result)
    if note:
        out += ["", f"_{note}_"]
    cited = {a.tool_call for c in result.claims for a in c.artifacts}
    calls = [t for t in result.tool_calls if t.id in cited]
    if calls:
        out += ["", "<details><summary>Evidence (tool output)</summary>", ""]
        for t in calls:
            out.append(md_code_block(t.output[:3000]))
        out += ["</details>"]
    return "\n".join(out) + "\n"
