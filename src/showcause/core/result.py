"""The review result: stable JSON fields and the exit code (docs/gate.md, "What the result says about each
claim"; the exit codes: docs/modes.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from showcause.core.meta import ReviewMeta
from showcause.core.records import GatedClaim, ToolCall

__all__ = ["EXIT_CODES", "ReviewResult", "exit_code"]

EXIT_CODES = {"KEEP": 0, "WARNING": 0, "MODIFY": 1, "REPLACE": 1, "INCONCLUSIVE": 3}


@dataclass
class ReviewResult:
    verdict: str
    model_verdict: str
    summary: str
    claims: list[GatedClaim] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    meta: ReviewMeta = field(default_factory=ReviewMeta)
    error: dict[str, str] | None = None
    label: str = ""              # what was reviewed (a case id, refs, a path)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "verdict": self.verdict, "model_verdict": self.model_verdict, "summary": self.summary,
            "claims": [c.to_json() for c in self.claims],
            "tool_calls": [{**c.to_json()} for c in self.tool_calls],
            "meta": self.meta.to_json(),
        }
        if self.error:
            data["error"] = self.error
        return data

    @property
    def artifacts_validated(self) -> int:
        return sum(len(c.artifacts) for c in self.claims if c.status == "validated")


def exit_code(result: ReviewResult, fail_on: str = "MODIFY") -> int:
    """0 pass, 1 blocked, 3 inconclusive. `fail_on` moves the bar: WARNING also fails; never fails nothing."""
    if result.verdict == "INCONCLUSIVE":
        return 3
    if fail_on == "never":
        return 0
    if fail_on == "WARNING" and result.verdict in ("WARNING", "MODIFY", "REPLACE"):
        return 1
    return EXIT_CODES[result.verdict]
