"""Claims and verdicts: the judge's answer schema (docs/modes.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

__all__ = ["BLOCKING", "LISTED_ARTIFACTS", "MAX_CLAIMS", "MAX_PARSED_CLAIMS", "SEVERITY_ORDER", "VERDICT_ORDER",
           "Claim", "FinalAnswer", "most_severe"]

Verdict = Literal["KEEP", "WARNING", "MODIFY", "REPLACE", "INCONCLUSIVE"]
VERDICT_ORDER = {"KEEP": 0, "WARNING": 1, "MODIFY": 2, "REPLACE": 3}
BLOCKING = ("MODIFY", "REPLACE")
SEVERITY_ORDER = {"low": 0, "medium": 1, "high": 2, "critical": 3}
MAX_CLAIMS = 5            # claims a review keeps (evidence/settle.py picks them after the gate)
MAX_PARSED_CLAIMS = 20    # claims read from a model's answer, so the cap can choose among them
# Artifacts a text of a review lists per claim (the JSON has all): a change that breaks 1,330 tests is one claim,
# not a page.
LISTED_ARTIFACTS = 10


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
    # Not capped here: the review keeps MAX_CLAIMS of them once they are gated (the most severe, validated
    # first), and says how many it left out; parsing bounds a model's list at MAX_PARSED_CLAIMS.
    claims: list[Claim] = Field(default_factory=list)
    # Claims of a model's answer beyond MAX_PARSED_CLAIMS, never read: counted with the ones the cap drops.
    # Set by the parser only (no part of the schema a model is shown).
    claims_dropped: SkipJsonSchema[int] = Field(default=0, ge=0, exclude=True)


def most_severe(verdicts: list[str]) -> str:
    """REPLACE > MODIFY > WARNING > KEEP; no verdicts means KEEP."""
    return max(verdicts, key=lambda v: VERDICT_ORDER.get(v, 0), default="KEEP")
