"""Which gated claims a review keeps: the probes' floor under a model's answer, then the cap.

The floor: in a mode that ran the mechanical probes, their own claims (a validated test regression, new
type error or dangling reference) go through the gate beside the model's, so a model that cites nothing,
or answers KEEP, never ends a review below what the probes validated. A probe claim is left out only when
a validated claim of the model's already rests on every artifact it rests on (the same finding, once).

The cap: a review keeps MAX_CLAIMS claims, chosen after the gate: validated ones first (the most severe
verdict first, so the cap never lowers the review's verdict), then by severity, then in the order they
came. The kept claims stay in that order (the judge's, then the probes'); how many were left out is
reported, never dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from showcause.core.artifacts import Artifact
from showcause.core.claims import MAX_CLAIMS, SEVERITY_ORDER, VERDICT_ORDER, Claim
from showcause.core.records import GatedClaim, ToolCall
from showcause.evidence.gate import apply_gate

__all__ = ["Settled", "artifact_key", "keep_ranked", "settle", "with_floor"]


@dataclass
class Settled:
    claims: list[GatedClaim]       # what the review keeps, in the order they came
    dropped: int                   # claims beyond the cap, not kept
    judged: list[GatedClaim]       # the judge's own claims, all of them, gated (its ungated verdict reads these)


def artifact_key(a: Artifact) -> tuple[str, str, int | None, str]:
    """One finding, whichever call showed it: a model re-running the probe's test finds the same regression."""
    return a.type, a.file, a.line, a.subject


def with_floor(judged: list[GatedClaim], probes: list[GatedClaim]) -> list[GatedClaim]:
    """The judge's claims, then each probe claim whose artifacts no validated claim of the judge covers."""
    covered = {artifact_key(a) for g in judged if g.status == "validated" for a in g.artifacts}
    extra = [p for p in probes if not (p.artifacts and {artifact_key(a) for a in p.artifacts} <= covered)]
    return [*judged, *extra]


def _rank(indexed: tuple[int, GatedClaim]) -> tuple[int, int, int, int]:
    i, g = indexed
    return (0 if g.status == "validated" else 1, -VERDICT_ORDER.get(g.verdict, 0),
            -SEVERITY_ORDER.get(g.claim.severity, 0), i)


def keep_ranked(gated: list[GatedClaim], cap: int = MAX_CLAIMS) -> tuple[list[GatedClaim], int]:
    """The `cap` best-ranked claims, in their original order, and how many were left out."""
    chosen = sorted(enumerate(gated), key=_rank)[:cap]
    kept = [g for _, g in sorted(chosen, key=lambda ig: ig[0])]
    return kept, len(gated) - len(kept)


def settle(claims: list[Claim], probe_claims: list[Claim], calls: list[ToolCall], *, source: str = "model",
           already_dropped: int = 0) -> Settled:
    """Gate the judge's claims (made by `source`) and the probes' floor, then keep MAX_CLAIMS of them.
    `already_dropped`: claims the parser never read (beyond MAX_PARSED_CLAIMS), reported with the rest."""
    judged = apply_gate(claims, calls, source)
    floor = apply_gate(probe_claims, calls, "probe")
    kept, dropped = keep_ranked(with_floor(judged, floor))
    return Settled(kept, dropped + already_dropped, judged)
