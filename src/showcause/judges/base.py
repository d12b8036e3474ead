"""The judge protocol (a mode that reviews a code change) and what a judge is given and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from showcause.core.claims import Claim, FinalAnswer
from showcause.core.meta import JudgeMeta
from showcause.evidence.ledger import Ledger
from showcause.judges.contract import Mode

if TYPE_CHECKING:   # loaded only by the quorum mode (it brings the HTTP clients)
    from showcause.quorum.peers import Peers

__all__ = ["Judge", "JudgeAnswer", "ReviewRequest"]


@dataclass
class ReviewRequest:
    """What a judge is told besides the snapshot. `plan` is the proposal; the rest may reach a blind phase."""

    task: str = ""
    plan: str = ""
    model: str | None = None
    base_url: str | None = None
    constraints: tuple[str, ...] = ()
    context: str = ""
    decision_type: str = ""
    risk_level: str = ""
    blindness_warn: float | None = None  # thresholds of the blindness check (judges/blindness.py);
    blindness_leak: float | None = None  # None: the policy's `[review]` keys
    quorum: Peers | None = None          # `--mode quorum`: its members (--quorum FILE or [quorum] of --config)

    @classmethod
    def from_case_input(cls, fields: dict[str, Any], *, task: str | None = None, plan: str | None = None,
                        model: str | None = None, base_url: str | None = None) -> ReviewRequest:
        """A request from a case's `input` object; explicit task/plan (from the command line) win."""
        raw = fields.get("constraints") or []
        constraints = tuple(str(c) for c in raw) if isinstance(raw, list) else (str(raw),)
        return cls(task=task if task else str(fields.get("task") or ""),
                   plan=plan if plan else str(fields.get("plan") or ""),
                   model=model, base_url=base_url, constraints=constraints,
                   context=str(fields.get("context") or ""), decision_type=str(fields.get("decision_type") or ""),
                   risk_level=str(fields.get("risk_level") or ""))


@dataclass
class JudgeAnswer:
    answer: FinalAnswer
    model: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    prompts: dict[str, str] = field(default_factory=dict)   # prompt name -> hash
    meta: JudgeMeta = field(default_factory=JudgeMeta)      # what the mode adds to the result's meta
    # A mode that ran the mechanical probes passes their own claims here (`judges.mechanical.probe_claims`):
    # the review gates them beside the answer's, so it never ends below what the probes validated.
    probe_claims: list[Claim] = field(default_factory=list)
    source: str = "model"      # who made `answer.claims` (core/records.CLAIM_SOURCES); the mechanical judge: probe


class Judge(Mode, Protocol):
    """A code-change mode (held by `judges.registry.CHANGE_MODES`). `run_review` gives it a ledger limited to
    `spec.tools`; what a review costs and which budget it runs under the bench reads from the spec too."""

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer: ...
