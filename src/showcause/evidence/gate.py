"""The gate: a blocking claim stands only when it cites an artifact the change introduced.

Rules (docs/gate.md), each closing a hole of the predecessor's shallow gate:
- only `test_regression`, `new_type_error` and `dangling_reference` artifacts qualify, and the tools
  create them only when the change introduced them (red-on-base tests and pre-existing type errors never);
- a cited tool id must exist; a cited location or test id must have been shown by a call of this review,
  and by one of the cited calls when tool ids are cited too (an id that does not exist is a cited call
  that showed nothing); file paths match exactly, never by suffix;
- when locations or test ids are cited, the artifact must be at one of them (citing a call is not enough
  to borrow an unrelated artifact of that call);
- the artifact must relate to the claim: its file, test or retired name appears, whole, in what the claim says;
- an artifact whose output line was cut from the text the judge saw does not exist (the ledger drops it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from showcause.core.artifacts import Artifact
from showcause.core.claims import BLOCKING, Claim
from showcause.core.records import GatedClaim, ToolCall

__all__ = ["apply_gate", "parse_ref"]

_TOOL_ID = re.compile(r"^T(\d+)$")
_LOCATION = re.compile(r"^(?P<file>[^:]+?):(?P<line>\d+)(?::\d+)?$")


@dataclass(frozen=True)
class Ref:
    kind: str          # tool | location | test | other
    text: str
    file: str = ""
    line: int | None = None


def _unquoted(text: str) -> str:
    """`text` without one pair of quotes around it (a model writes "`T3`"); a quote that belongs to the
    reference stays: a test titled "shows version on `--version`" ends in a backtick of its own."""
    while len(text) >= 2 and text[0] == text[-1] and text[0] in "`'\"":
        text = text[1:-1].strip()
    return text


def parse_ref(raw: str) -> Ref:
    text = _unquoted(raw.strip()).removeprefix("./")
    if _TOOL_ID.match(text):
        return Ref("tool", text)
    if "::" in text:
        return Ref("test", text, file=text.split("::", 1)[0])
    m = _LOCATION.match(text)
    if m:
        return Ref("location", text, file=m["file"], line=int(m["line"]))
    return Ref("other", text)


def _mentions(claim: Claim, artifact: Artifact) -> bool:
    """Whether the claim names what the artifact is about (hole: any artifact validated any claim)."""
    said = " ".join([claim.claim, claim.location or "", claim.fix or "", *claim.evidence_refs])
    keys = {artifact.file, artifact.file.rsplit("/", 1)[-1]}
    if artifact.type == "test_regression":
        keys |= {artifact.subject, artifact.subject.rsplit("::", 1)[-1]}
    elif artifact.type == "dangling_reference":
        keys.add(artifact.subject)
    # Whole names only: `a.py` is not named by "data.py", nor `total` by "subtotal".
    return any(k and re.search(rf"(?<![\w$]){re.escape(k)}(?![\w$])", said) for k in keys)


def _matches(artifact: Artifact, ref: Ref) -> bool:
    if ref.kind == "location":
        return artifact.file == ref.file and artifact.line == ref.line
    if ref.kind == "test":
        return artifact.type == "test_regression" and artifact.subject == ref.text
    return False


def _shown_by(calls: list[ToolCall], ref: Ref) -> bool:
    for call in calls:
        for s in call.shown:
            if ref.kind == "location" and s.file == ref.file and s.line == ref.line:
                return True
            if ref.kind == "test" and s.test == ref.text:
                return True
    return False


def _gate_one(claim: Claim, calls: list[ToolCall]) -> GatedClaim:
    by_id = {c.id: c for c in calls}
    refs = [parse_ref(r) for r in claim.evidence_refs if isinstance(r, str)]
    reasons: list[str] = []
    named = [r for r in refs if r.kind == "tool"]
    cited = [by_id[r.text] for r in named if r.text in by_id]
    for r in refs:
        if r.kind == "tool" and r.text not in by_id:
            reasons.append(f"{r.text} is not a tool call of this review")
        elif r.kind == "other" and r.text:
            reasons.append(f"{r.text} is not a tool id, a location (path:line) or a test id (path::name)")
    # Once any tool id is cited, locations must come from the cited calls that exist: an invented id (T99)
    # must not widen the scope to every call of the review.
    scope = cited if named else calls
    pinned = [r for r in refs if r.kind in ("location", "test")]
    for r in pinned:
        if not _shown_by(scope, r):
            where = "the cited calls" if named else "any tool call of this review"
            reasons.append(f"{r.text} was not shown by {where}")
    shown_pins = [r for r in pinned if _shown_by(scope, r)]
    pool = [a for c in scope for a in c.artifacts]
    # Pinned locations restrict the candidates; a bare tool id offers all of its artifacts.
    candidates = [a for a in pool if any(_matches(a, r) for r in shown_pins)] if pinned else pool if cited else []
    related = [a for a in candidates if _mentions(claim, a)]
    if candidates and not related:
        reasons.append("no cited artifact relates to what the claim says (name its test, file or symbol)")
    if not candidates and (cited or shown_pins):
        reasons.append("the cited evidence holds no artifact introduced by the change")
    if not refs:
        reasons.append("the claim cites no evidence")
    if claim.verdict not in BLOCKING:
        return GatedClaim(claim, claim.verdict, "unconfirmed", related, reasons)
    if claim.result != "confirmed":
        reasons.insert(0, f"result is {claim.result}, not confirmed")
        return GatedClaim(claim, "WARNING", "downgraded", related, reasons)
    if related:
        return GatedClaim(claim, claim.verdict, "validated", related, [])
    return GatedClaim(claim, "WARNING", "downgraded", [], reasons)


def apply_gate(claims: list[Claim], calls: list[ToolCall], source: str = "model") -> list[GatedClaim]:
    """Each claim gated on its own; `source` says who made them (core/records.CLAIM_SOURCES)."""
    gated = [_gate_one(c, calls) for c in claims]
    for g in gated:
        g.source = source
    return gated
