"""Helpers shared by the renderers: where a gated claim points."""

from __future__ import annotations

import re

from showcause.core.records import GatedClaim

__all__ = ["claim_location", "one_line"]

_LOC = re.compile(r"^(?P<file>[^:\s]+?)(?::(?P<line>\d+))?(?::\d+)?$")


def claim_location(c: GatedClaim) -> tuple[str, int | None] | None:
    """The claim's best location: its first validated artifact, else its own `location` field."""
    for a in c.artifacts:
        return a.file, a.line
    m = _LOC.match((c.claim.location or "").strip())
    if m and not m["file"].startswith(("/", "..")):
        return m["file"], int(m["line"]) if m["line"] else None
    return None


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
