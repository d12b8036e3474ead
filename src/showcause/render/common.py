"""Helpers shared by the renderers: where a gated claim points, who made it, what the cap left out."""

from __future__ import annotations

import re

from showcause.core.artifacts import Artifact
from showcause.core.claims import LISTED_ARTIFACTS, MAX_CLAIMS
from showcause.core.records import GatedClaim
from showcause.core.result import ReviewResult

__all__ = ["claim_location", "dropped_note", "from_probes", "listed_artifacts", "notes", "one_line"]

_LOC = re.compile(r"^(?P<file>[^:\s]+?)(?::(?P<line>\d+))?(?::\d+)?$")


def claim_location(c: GatedClaim) -> tuple[str, int | None] | None:
    """The claim's best location: its first validated artifact, else its own `location` field."""
    for a in c.artifacts:
        return a.file, a.line
    m = _LOC.match((c.claim.location or "").strip())
    if m and not m["file"].startswith(("/", "..")):
        return m["file"], int(m["line"]) if m["line"] else None
    return None


def listed_artifacts(c: GatedClaim) -> tuple[list[Artifact], str]:
    """The artifacts a text format lists for a claim, and what it says of the rest (every one is in the JSON)."""
    rest = len(c.artifacts) - LISTED_ARTIFACTS
    said = f"and {rest} more, each in the JSON result (--format json)" if rest > 0 else ""
    return c.artifacts[:LISTED_ARTIFACTS], said


def notes(result: ReviewResult) -> list[str]:
    """What the review could not check (`meta.notes`, e.g. no tests found): said in every format."""
    return [str(n) for n in result.meta.notes or []]


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def from_probes(result: ReviewResult, c: GatedClaim) -> bool:
    """Whether to say a claim is the probes' own: in a review a model answered (the mechanical judge's are
    all the probes', and its header says so)."""
    return c.source == "probe" and bool(result.meta.model)


def dropped_note(result: ReviewResult) -> str | None:
    """The sentence saying how many claims the cap left out, if any."""
    n = result.meta.claims_dropped or 0
    if n <= 0:
        return None
    return (f"{n} more claim{'s' if n != 1 else ''} beyond the cap of {MAX_CLAIMS} "
            f"{'were' if n != 1 else 'was'} not kept.")
