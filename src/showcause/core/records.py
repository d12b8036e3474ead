"""What a review recorded: each tool call (the ledger's rows) and each claim after the gate."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from showcause.core.artifacts import Artifact, Shown
from showcause.core.claims import Claim

__all__ = ["CLAIM_SOURCES", "GatedClaim", "ToolCall"]

# Who made a claim: the mode's model; the mechanical probes (the mechanical judge's claims, and in a model
# mode the ones added beside the model's); the note on what the host-side analysis left out.
CLAIM_SOURCES = ("model", "probe", "analysis")


@dataclass
class ToolCall:
    id: str
    tool: str
    args: dict[str, Any]
    ok: bool
    output: str
    ms: int
    artifacts: list[Artifact] = field(default_factory=list)
    shown: list[Shown] = field(default_factory=list)
    isolation: str | None = None
    results: list[dict[str, Any]] | None = None
    tree: str = "head"           # the tree the call read (base: a blind phase; such calls never back a claim)
    error: str | None = None     # the error code of a call refused for a reason other than its arguments

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "tool": self.tool, "args": self.args, "ok": self.ok,
                                "output": self.output, "artifacts": [a.to_json() for a in self.artifacts],
                                "ms": self.ms, "isolation": self.isolation}
        if self.results is not None:
            data["results"] = self.results
        if self.tree != "head":
            data["tree"] = self.tree
        if self.error:
            data["error"] = self.error
        return data


@dataclass
class GatedClaim:
    claim: Claim
    verdict: str                           # after the gate
    status: str                            # validated | downgraded | unconfirmed
    artifacts: list[Artifact] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    source: str = "model"                  # one of CLAIM_SOURCES

    def to_json(self) -> dict[str, Any]:
        data = self.claim.model_dump()
        data["model_verdict"] = self.claim.verdict
        data["verdict"] = self.verdict
        data["gate"] = {"status": self.status, "artifacts": [a.to_json() for a in self.artifacts],
                        "reasons": self.reasons}
        data["source"] = self.source
        return data
