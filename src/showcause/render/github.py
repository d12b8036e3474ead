"""GitHub Actions workflow annotations (`::error file=…,line=…::message`)."""

from __future__ import annotations

from showcause.core.escape import annotation_data as _escape_data
from showcause.core.escape import annotation_property as _escape_prop
from showcause.core.result import ReviewResult
from showcause.render.common import claim_location, dropped_note, notes, one_line

__all__ = ["render_github"]


def render_github(result: ReviewResult) -> str:
    lines = [f"::warning title=showcause::{_escape_data(one_line(w, 1000))}" for w in result.meta.warnings]
    said = [*notes(result), *filter(None, [dropped_note(result)])]   # the cap is never a silent drop
    lines += [f"::notice title=showcause::{_escape_data(one_line(n, 1000))}" for n in said]
    for c in result.claims:
        level = "error" if c.verdict in ("MODIFY", "REPLACE") else "warning"
        props = [f"title={_escape_prop(f'showcause {c.verdict} ({c.status})')}"]
        where = claim_location(c)
        if where:
            props.insert(0, f"file={_escape_prop(where[0])}")
            if where[1]:
                props.insert(1, f"line={where[1]}")
        lines.append(f"::{level} {','.join(props)}::{_escape_data(one_line(c.claim.claim, 1000))}")
    tail = f"showcause: {result.verdict} — {one_line(result.summary, 500)}"
    level = "error" if result.verdict in ("MODIFY", "REPLACE", "INCONCLUSIVE") else "notice"
    lines.append(f"::{level} title=showcause::{_escape_data(tail)}")
    return "\n".join(lines) + "\n"
