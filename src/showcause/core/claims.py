"""Claims and verdicts: the judge's answer schema (DESIGN.md, "The model's final answer")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BLOCKING", "VERDICT_ORDER", "Claim", "FinalAnswer", "most_severe"]

Verdict = Literal["KEEP", "WARNING", "MODIFY", "REPLACE", "INCONCLUSIVE"]
VERDICT_ORDER = {"KEEP": 0, "WARNING": 1, "MODIFY": 2, "REPLACE": 3}
BLOCKING = ("MODIFY", "REPLACE")
MAX_CLAIMS = 5


class Claim(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claim: str = Field(min_length=1, max_length=4000)
    severity: Literal["low", "medium", "high", "critical"] = "medium"
    location: str | None = None
    evidence_refs: list[str] = Field(default_factory=list, max_length=20)
    result: Literal["confirmed", "not_confirmed", "unable_to_verify"] = "unable_to_verify"
    verdict: Literal["WARNING", "MODIFY", "REPLACE"] = "WARNING"
    fix: str | None = None


class FinalAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    summary: str = ""
    claims: list[Claim] = Field(default_factory=list, max_length=MAX_CLAIMS)


def most_severe(verdicts: list[str]) -> str:
    """REPLACE > MODIFY > WARNING > KEEP; no verdicts means KEEP."""
    return max(verdicts, key=lambda v: VERDICT_ORDER.get(v, 0), default="KEEP")
