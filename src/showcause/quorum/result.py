"""The quorum's result, with the predecessor's field names so its callers migrate unchanged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["AGREEMENT_BAR", "QuorumResult", "SourceReport", "Status", "certainty", "result_text"]

AGREEMENT_BAR = 0.7   # a source agrees with the consensus when the arbiter rates it at least this
Status = Literal["ok", "error", "unavailable", "skipped"]


@dataclass
class SourceReport:
    """One source of a tier the run entered. `error` is an error code (never a message: no key can leak)."""

    name: str
    model: str
    weight: int
    status: Status = "error"
    agreement: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "model": self.model, "status": self.status,
                               "weight": self.weight, "agreement": self.agreement}
        if self.error is not None and self.status in ("error", "unavailable"):
            out["error"] = self.error
        return out


@dataclass
class QuorumResult:
    response: str | None
    certainty: float
    achieved: bool
    tier: int
    required_weight: int
    agreeing_weight: int
    sources: list[SourceReport]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    caller_supplied: bool = False
    caller_agreement: float | None = None
    arbiter_failed: bool = False
    deadline_exceeded: bool = False
    arbiter_calls: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def answered(self) -> bool:
        """Whether any source answered (the command exits 3 when none did)."""
        return any(s.status == "ok" for s in self.sources)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"response": self.response, "certaintyScore": self.certainty}
        if self.caller_supplied:
            out["callerAgreement"] = self.caller_agreement
        quorum: dict[str, Any] = {"achieved": self.achieved, "tier": self.tier, "requiredWeight": self.required_weight,
                                  "agreeingWeight": self.agreeing_weight}
        if self.arbiter_failed:
            quorum["arbiterFailed"] = True
        if self.deadline_exceeded:
            quorum["deadlineExceeded"] = True
        quorum["sources"] = [s.to_dict() for s in self.sources]
        out["quorum"] = quorum
        out["tokenUsage"] = {"prompt": self.prompt_tokens, "completion": self.completion_tokens,
                             "total": self.prompt_tokens + self.completion_tokens}
        out["cost_usd"] = self.cost_usd
        return out


def certainty(agreeing_weight: int, required_weight: int, agreeing_ratings: list[float]) -> float:
    """min(1, agreeing/required) * the mean rating of the agreeing sources, to 2 places (0 when none agree)."""
    if required_weight <= 0 or not agreeing_ratings:
        return 0.0
    score = min(1.0, agreeing_weight / required_weight) * (sum(agreeing_ratings) / len(agreeing_ratings))
    return round(score, 2)


def result_text(result: QuorumResult) -> str:
    """The result for a terminal: the answer, then one line of verdict and one line a source."""
    flags = [word for word, on in (("arbiter failed", result.arbiter_failed),
                                   ("deadline exceeded", result.deadline_exceeded)) if on]
    lines = [result.response if result.response is not None else "(no source answered)", "",
             f"quorum {'achieved' if result.achieved else 'NOT achieved'} at tier {result.tier}: agreeing weight "
             f"{result.agreeing_weight} of {result.required_weight}, certainty {result.certainty:g}"
             + (f" ({', '.join(flags)})" if flags else "")]
    if result.caller_supplied:
        agreement = "unrated" if result.caller_agreement is None else f"{result.caller_agreement:g}"
        lines.append(f"your answer's agreement with the consensus: {agreement}")
    for s in result.sources:
        rating = "-" if s.agreement is None else f"{s.agreement:g}"
        error = f" {s.error}" if s.error and s.status in ("error", "unavailable") else ""
        lines.append(f"  {s.name:<20} {s.status:<11} weight {s.weight}  agreement {rating}{error}")
    lines.append(f"tokens: {result.prompt_tokens} prompt + {result.completion_tokens} completion")
    return "\n".join(lines) + "\n"
