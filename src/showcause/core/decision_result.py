"""The result of a decision review, its JSON and its exit code.

A decision verdict rests on no mechanical artifact (there is no change to test), so by the rule that
only shown cause may block, it does not fail a pipeline by default: every completed verdict exits 0.
`--fail-on MODIFY` opts in to exit 1 on MODIFY/REPLACE (`WARNING` also on INSUFFICIENT_EVIDENCE). A review
that did not complete — an error code, including BLINDNESS_LEAK, or a budget that ran out before the
reveal — exits 3 and is never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from showcause.core.decision import DecisionVerdict
from showcause.core.errors import EXIT_INCONCLUSIVE, ShowcauseError
from showcause.core.meta import DecisionMeta

__all__ = ["DECISION_FAIL_ON", "DecisionResult", "decision_exit_code"]

DECISION_FAIL_ON = ("never", "MODIFY", "WARNING")


@dataclass
class DecisionResult:
    verdict: str                        # KEEP | MODIFY | REPLACE | INSUFFICIENT_EVIDENCE | INCONCLUSIVE
    recommendation: str = ""
    critical_assumptions: list[str] = field(default_factory=list)
    material_risks: list[str] = field(default_factory=list)
    better_alternative: str | None = None
    falsification_probe: dict[str, str] | None = None
    confidence: float | None = None
    meta: DecisionMeta = field(default_factory=DecisionMeta)
    error: dict[str, str] | None = None

    @classmethod
    def from_verdict(cls, v: DecisionVerdict, meta: DecisionMeta) -> DecisionResult:
        return cls(v.verdict, v.recommendation, list(v.critical_assumptions), list(v.material_risks),
                   v.better_alternative, v.falsification_probe.model_dump(), v.confidence, meta)

    @classmethod
    def failed(cls, exc: ShowcauseError, meta: DecisionMeta) -> DecisionResult:
        return cls("INCONCLUSIVE", f"The review failed: {exc.message}", meta=meta,
                   error={"code": exc.code, "message": exc.message})

    @property
    def completed(self) -> bool:
        return self.error is None and self.verdict != "INCONCLUSIVE" and not self.meta.budget_exhausted

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": "decision", "verdict": self.verdict, "recommendation": self.recommendation,
            "critical_assumptions": self.critical_assumptions, "material_risks": self.material_risks,
            "better_alternative": self.better_alternative, "falsification_probe": self.falsification_probe,
            "confidence": self.confidence, "meta": self.meta.to_json(),
        }
        if self.error:
            data["error"] = self.error
        return data


def decision_exit_code(result: DecisionResult, fail_on: str = "never") -> int:
    """0 completed, 3 not completed; 1 only when `fail_on` opts in (MODIFY; WARNING adds INSUFFICIENT_EVIDENCE)."""
    if not result.completed:
        return EXIT_INCONCLUSIVE
    if fail_on == "MODIFY" and result.verdict in ("MODIFY", "REPLACE"):
        return 1
    if fail_on == "WARNING" and result.verdict in ("MODIFY", "REPLACE", "INSUFFICIENT_EVIDENCE"):
        return 1
    return 0
