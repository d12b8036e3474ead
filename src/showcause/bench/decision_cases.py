"""Decision cases (`decision_cases/<id>.json`): a decision to review with its ground truth, for the
decision benchmark. The format is public and versioned (docs/cases.md); the parser is strict at every level.

Only the bench reads `truth`, `diagnostics` and `source`: a reviewer is given `DecisionCase.decision()`,
which is built from `input` alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from showcause.core import jsonsafe
from showcause.core.decision import DecisionInput, DecisionType, RiskLevel, explain
from showcause.core.errors import InputError

__all__ = ["FLAWED", "DecisionCase", "DecisionCaseDoc", "decision_case_set_hash", "find_decision_cases",
           "is_decision_case_set", "load_decision_case"]

Status = Literal["correct", "materially_flawed", "fundamentally_flawed", "insufficient_information"]
Verdict = Literal["KEEP", "MODIFY", "REPLACE", "INSUFFICIENT_EVIDENCE"]
FLAWED = ("materially_flawed", "fundamentally_flawed")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class CaseSource(_Strict):
    kind: Literal["real_pr", "reverted_pr", "postmortem", "issue", "incident", "synthetic"]
    url: str = ""
    note: str = ""


class CaseInput(_Strict):
    """The decision as a reviewer gets it (the fields of `DecisionInput`, whose limits apply too)."""

    objective: str = Field(min_length=1)
    constraints: list[str] = Field(default_factory=list)
    context: str = ""
    environment: str = ""
    evidence: list[str] = Field(default_factory=list)
    proposed_solution: str = Field(min_length=1)
    decision_type: DecisionType
    risk_level: RiskLevel


class CaseTruth(_Strict):
    status: Status
    acceptable: list[Verdict] = Field(min_length=1)   # the first is the primary (the exact verdict)
    issue: str = ""
    required_observations: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> CaseTruth:
        if self.status == "correct" and self.acceptable != ["KEEP"]:
            raise ValueError("a correct case accepts only KEEP")
        if self.status != "correct" and "KEEP" in self.acceptable:
            raise ValueError(f"a {self.status} case never accepts KEEP")
        if len(set(self.acceptable)) != len(self.acceptable):
            raise ValueError("acceptable names a verdict twice")
        return self


class Diagnostics(_Strict):
    keywords: list[str] = Field(default_factory=list)


class DecisionCaseDoc(_Strict):
    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    category: str = Field(min_length=1)
    source: CaseSource
    input: CaseInput
    truth: CaseTruth
    diagnostics: Diagnostics = Field(default_factory=Diagnostics)


@dataclass(frozen=True)
class DecisionCase:
    path: Path
    doc: DecisionCaseDoc

    @property
    def id(self) -> str:
        return self.doc.id

    def decision(self) -> DecisionInput:
        """What a reviewer is given: `input` only."""
        return DecisionInput.model_validate(self.doc.input.model_dump())


def load_decision_case(path: Path) -> DecisionCase:
    """Read and validate one case file; every problem is an InputError naming the file and the field."""
    path = Path(path).resolve()
    try:
        raw = jsonsafe.load_file(path, max_bytes=jsonsafe.MAX_CASE_BYTES)
    except FileNotFoundError:
        raise InputError(f"{path}: no such decision case") from None
    except (OSError, ValueError) as exc:   # unreadable, not JSON, or beyond the caps of jsonsafe
        raise InputError(f"{path.name}: {exc}") from None
    if not isinstance(raw, dict):
        raise InputError(f"{path.name}: a decision case is a JSON object")
    try:
        doc = DecisionCaseDoc.model_validate(raw)
        DecisionInput.model_validate(doc.input.model_dump())   # the review's own limits
    except ValidationError as exc:
        raise InputError(f"{path.name}: {explain(exc)}") from None
    if doc.id != path.stem:
        raise InputError(f"{path.name}: id {doc.id!r} does not match the file name")
    return DecisionCase(path, doc)


def is_decision_case_set(root: Path) -> bool:
    """A folder of `*.json` files that is no repo case (holds no case.json) and holds none (no folder with a
    case.json), or one such file."""
    root = Path(root)
    if root.is_file():
        return root.suffix == ".json" and root.name != "case.json"
    return (root.is_dir() and any(root.glob("*.json")) and not (root / "case.json").exists()
            and not any(root.glob("*/case.json")))


def find_decision_cases(root: Path) -> list[Path]:
    root = Path(root).resolve()
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise InputError(f"{root}: no such directory")
    return sorted(root.glob("*.json"))


def decision_case_set_hash(paths: list[Path]) -> str:
    """A hash over every case file: a changed case set cannot be resumed into."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]
