"""Decision cases (`decision_cases/<id>.json`): the format, its loader and the rules `cases verify` checks.

A decision case is one JSON file: a decision (`input`, exactly what `review --decision` reads) and its ground
truth. Only `input` is ever given to a reviewer; `truth`, `diagnostics` and `source` are the benchmark's.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from showcause.core import jsonsafe
from showcause.core.decision import DecisionInput, explain
from showcause.core.errors import InputError
from showcause.judges.blindness import Thresholds, check_blindness

__all__ = ["FLAWED", "FORMAT", "DecisionCase", "DecisionCaseDoc", "case_problems", "decision_case_set_hash",
           "find_decision_cases", "is_decision_case_dir", "load_decision_case", "load_sound_case"]

FORMAT = 1   # bumped on any change that makes an older file invalid or changes a field's meaning

_Text = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,79}")
Verdict = Literal["KEEP", "MODIFY", "REPLACE", "INSUFFICIENT_EVIDENCE"]
Status = Literal["correct", "materially_flawed", "fundamentally_flawed", "insufficient_information"]
FLAWED: tuple[Status, ...] = ("materially_flawed", "fundamentally_flawed")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Source(_Strict):
    kind: Literal["real_pr", "reverted_pr", "postmortem", "issue", "incident", "synthetic"]
    url: str = ""
    note: str = ""


class Truth(_Strict):
    status: Status
    acceptable: list[Verdict] = Field(min_length=1)   # the first is the primary (expected) verdict
    issue: str = ""
    required_observations: list[_Text] = Field(default_factory=list)
    tempting: str = ""   # correct cases only: why a textbook reviewer would object, and why the context wins


class Diagnostics(_Strict):
    keywords: list[_Text] = Field(default_factory=list)   # case-insensitive regexes; a diagnostic, never a score


class DecisionCaseDoc(_Strict):
    format: Literal[1] = FORMAT   # absent means 1: a file with exactly the fields of issue 16 is a version-1 case
    id: _Text
    title: _Text
    category: _Text
    source: Source
    input: DecisionInput
    truth: Truth
    diagnostics: Diagnostics


@dataclass(frozen=True)
class DecisionCase:
    path: Path
    doc: DecisionCaseDoc

    @property
    def id(self) -> str:
        return self.doc.id

    @property
    def flawed(self) -> bool:
        return self.doc.truth.status in FLAWED

    @property
    def tempting(self) -> bool:
        return bool(self.doc.truth.tempting.strip())

    def decision(self) -> DecisionInput:
        """What a reviewer is given: `input` only, never `truth`, `diagnostics` or `source`."""
        return self.doc.input


def load_decision_case(path: Path) -> DecisionCase:
    """Read one case file against the schema (strict: unknown fields and wrong types are refused)."""
    path = Path(path)
    raw = jsonsafe.load_object(path, max_bytes=jsonsafe.MAX_CASE_BYTES, missing=f"{path.name}: no such decision case",
                               unreadable=f"{path.name}: ", not_object=f"{path.name}: a decision case is a JSON object")
    try:
        return DecisionCase(path, DecisionCaseDoc.model_validate(raw))
    except ValidationError as exc:
        raise InputError(f"{path.name}: {explain(exc, limit=3)}") from None


def _truth_problems(truth: Truth) -> list[str]:
    acc = truth.acceptable
    out = []
    if len(set(acc)) != len(acc):
        out.append("truth.acceptable: a verdict is listed twice")
    if truth.status == "correct":
        if acc != ["KEEP"]:
            out.append("truth.acceptable: a correct case accepts only KEEP")
    elif "KEEP" in acc:
        out.append(f"truth.acceptable: a {truth.status} case never accepts KEEP")
    if truth.status == "insufficient_information" and acc[0] != "INSUFFICIENT_EVIDENCE":
        out.append("truth.acceptable: an insufficient_information case expects INSUFFICIENT_EVIDENCE first")
    if truth.status != "correct" and not truth.issue.strip():
        out.append(f"truth.issue: a {truth.status} case says what is wrong")
    if truth.status in FLAWED and not truth.required_observations:
        out.append(f"truth.required_observations: a {truth.status} case lists what a reviewer must notice")
    if truth.tempting.strip() and truth.status != "correct":
        out.append("truth.tempting: only a correct case is tempting")
    return out


def case_problems(case: DecisionCase, thresholds: Thresholds | None = None) -> list[str]:
    """Every rule a schema cannot say; empty when the case is sound."""
    doc = case.doc
    out = []
    if doc.id != case.path.stem:
        out.append(f"id {doc.id!r} does not match the file name {case.path.name!r}")
    if not _ID.fullmatch(doc.id):
        out.append(f"id {doc.id!r}: lower-case letters, digits and '-', at most 80 characters")
    if doc.source.kind != "synthetic" and not doc.source.url.startswith(("https://", "http://")):
        out.append(f"source.url: a {doc.source.kind} case names its public source (http or https)")
    out += _truth_problems(doc.truth)
    for word in doc.diagnostics.keywords:
        try:
            re.compile(word)
        except re.error as exc:
            out.append(f"diagnostics.keywords: {word!r} is not a regular expression ({exc})")
    check = check_blindness(doc.input.proposed_solution, doc.input.blind_fields(), thresholds or Thresholds())
    if check.warning:
        out.append(f"input: {check.score:.0%} of the proposal's {check.n}-word sequences ({check.shared} of "
                   f"{check.total}) appear in the fields the blind phase reads (must stay below the warning "
                   f"threshold, {check.thresholds.effective_warn:.0%})")
    return out


def is_decision_case_dir(path: Path) -> bool:
    """A decision-case folder holds `*.json` files and no repo case (a folder with case.json); a single
    `.json` file other than case.json is one decision case."""
    path = Path(path)
    if path.is_file():
        return path.suffix == ".json" and path.name != "case.json"
    if not path.is_dir() or (path / "case.json").is_file():
        return False
    if any((p / "case.json").is_file() for p in path.iterdir() if p.is_dir()):
        return False
    return any(p.is_file() for p in path.glob("*.json"))


def find_decision_cases(root: Path) -> list[Path]:
    root = Path(root)
    if root.is_file():
        return [root]
    return sorted(p for p in root.glob("*.json") if p.is_file())


def load_sound_case(path: Path) -> DecisionCase:
    """A case the bench may score: loaded, and every rule of `case_problems` holding (else an InputError
    naming the file and each problem)."""
    case = load_decision_case(path)
    problems = case_problems(case)
    if problems:
        raise InputError(f"{Path(path).name}: " + "; ".join(problems))
    return case


def decision_case_set_hash(paths: list[Path]) -> str:
    """A hash over every case file: a changed case set cannot be resumed into."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]
