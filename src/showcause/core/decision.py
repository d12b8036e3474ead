"""A decision to review, and the two answers a reviewer gives about it: the blind position and the verdict.

The input is strict (unknown keys, wrong types, out-of-range lengths and unknown enum values are refused
as INVALID_INPUT). The answers are parsed as models really send them: `<think>` blocks, fences, prose
around the JSON, key case and spelling variants, a confidence written as "80%" or 80, a list sent as
one string; anything else is a `MalformedAnswer` worded for the one repair turn.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from showcause.core import jsonsafe
from showcause.core.answer import last_json_object, strip_reasoning
from showcause.core.errors import InputError, MalformedAnswer

__all__ = ["DECISION_VERDICTS", "DecisionInput", "DecisionType", "DecisionVerdict", "FalsificationProbe", "Position",
           "RiskLevel", "decision_from_fields", "explain", "load_decision", "parse_position", "parse_verdict"]

DECISION_VERDICTS = ("KEEP", "MODIFY", "REPLACE", "INSUFFICIENT_EVIDENCE")

DecisionType = Literal["architecture", "refactor", "debugging", "database", "api", "dependency", "performance",
                       "security", "implementation", "other"]
RiskLevel = Literal["low", "medium", "high", "critical"]


# pattern: at least one non-space character (a blank field is as empty as a missing one)
_Objective = Annotated[str, StringConstraints(min_length=1, max_length=4_000, pattern=r"\S")]
_Constraint = Annotated[str, StringConstraints(min_length=1, max_length=2_000, pattern=r"\S")]
_Evidence = Annotated[str, StringConstraints(min_length=1, max_length=8_000, pattern=r"\S")]
_Proposal = Annotated[str, StringConstraints(min_length=1, max_length=60_000, pattern=r"\S")]

_NOT_THE_PLAN = "Do not put the proposed solution here: the blind phase reads this field."


class DecisionInput(BaseModel):
    """A decision: the problem (what the blind phase sees) and the proposed solution (what it never sees)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    objective: _Objective = Field(description="What has to be achieved. " + _NOT_THE_PLAN)
    constraints: list[_Constraint] = Field(default_factory=list, max_length=50,
                                            description="Hard requirements. " + _NOT_THE_PLAN)
    context: str = Field(default="", max_length=60_000, description="Background. " + _NOT_THE_PLAN)
    environment: str = Field(default="", max_length=8_000, description="Runtime, scale, team. " + _NOT_THE_PLAN)
    evidence: list[_Evidence] = Field(default_factory=list, max_length=30,
                                         description="Facts, measurements, incidents. " + _NOT_THE_PLAN)
    decision_type: DecisionType
    risk_level: RiskLevel
    proposed_solution: _Proposal = Field(description="The decision under review.")

    def blind_fields(self) -> list[str]:
        """Every text the blind phase reads, one entry per field or list item (the blindness check's unit)."""
        return [self.objective, *self.constraints, self.context, self.environment, *self.evidence]


def explain(exc: ValidationError, limit: int = 6) -> str:
    """A validation error in the words of the fields: `risk_level: Input should be …; objective: unknown field`."""
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "the document"
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "string_pattern_mismatch":
            msg = "must not be blank"
        else:
            msg = err["msg"]
        parts.append(f"{where}: {msg}")
    more = len(exc.errors()) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def load_decision(path: Path) -> DecisionInput:
    """Read and validate a decision file; every problem is an InputError (exit 2) naming the field."""
    try:
        raw = jsonsafe.read_capped(path, jsonsafe.MAX_DECISION_BYTES)
    except FileNotFoundError:
        raise InputError(f"{path}: no such decision file") from None
    except jsonsafe.ParseLimitError as exc:
        raise InputError(f"{path}: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the decision file: {exc}") from None
    return decision_from_fields(jsonsafe.loads_input(raw, max_bytes=jsonsafe.MAX_DECISION_BYTES, label=str(path)),
                                str(path))


def decision_from_fields(data: Any, label: str = "the decision") -> DecisionInput:
    """Validate a decision given as fields (a parsed file, an MCP call); every problem is an InputError."""
    if not isinstance(data, dict):
        raise InputError(f"{label}: a decision is a JSON object")
    try:
        return DecisionInput.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{label}: invalid decision: {explain(exc)}") from None


# ---- the reviewer's answers -----------------------------------------------------------------------------

class Direction(BaseModel):
    model_config = ConfigDict(extra="ignore")

    approach: str = Field(min_length=1, max_length=4_000)
    pros: list[str] = Field(default_factory=list, max_length=6)
    cons: list[str] = Field(default_factory=list, max_length=6)


class Position(BaseModel):
    """The blind phase's own view of the problem; kept inside the conversation, never returned."""

    model_config = ConfigDict(extra="ignore")

    main_assumptions: list[str] = Field(default_factory=list, max_length=12)
    directions: list[Direction] = Field(min_length=1, max_length=5)
    failure_modes: list[str] = Field(default_factory=list, max_length=12)
    preferred_solution: str = Field(min_length=1, max_length=8_000)
    assumptions_to_test: list[str] = Field(default_factory=list, max_length=12)


class FalsificationProbe(BaseModel):
    model_config = ConfigDict(extra="ignore")

    description: str = Field(min_length=1, max_length=4_000)
    expected_signal: str = Field(min_length=1, max_length=4_000)


class DecisionVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: Literal["KEEP", "MODIFY", "REPLACE", "INSUFFICIENT_EVIDENCE"]
    recommendation: str = Field(min_length=1, max_length=8_000)
    critical_assumptions: list[str] = Field(default_factory=list, max_length=10)
    material_risks: list[str] = Field(default_factory=list, max_length=10)
    better_alternative: str | None = Field(default=None, max_length=8_000)
    falsification_probe: FalsificationProbe
    confidence: float = Field(ge=0.0, le=1.0)


_POSITION_KEYS = frozenset({"main_assumptions", "directions", "failure_modes", "preferred_solution",
                            "assumptions_to_test"})
_VERDICT_KEYS = frozenset({"verdict", "decision", "recommendation", "confidence"})
_ALIASES = {"assumptions": "critical_assumptions", "risks": "material_risks", "alternative": "better_alternative",
            "probe": "falsification_probe", "falsification": "falsification_probe", "signal": "expected_signal",
            "expected": "expected_signal", "decision": "verdict"}
_LIST_CAPS = {"main_assumptions": 12, "failure_modes": 12, "assumptions_to_test": 12, "directions": 5,
              "pros": 6, "cons": 6, "critical_assumptions": 10, "material_risks": 10}
_NONE = {"", "none", "n/a", "na", "null", "no", "-"}


def _normalize(value: Any) -> Any:
    """Keys lower-cased with `_` separators and aliases resolved; lists capped; one string as a list of one."""
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        k = re.sub(r"[\s\-]+", "_", str(key).strip().lower())
        k = _ALIASES.get(k, k)
        if k in _LIST_CAPS:
            if isinstance(item, str):
                item = [item]
            if isinstance(item, list):
                # Over-long lists are cut, not refused: the prompt asks for fewer, the schema caps them.
                item = [_normalize(x) if isinstance(x, dict) else x if k == "directions" else str(x)
                        for x in item[: _LIST_CAPS[k]]]
                if k == "directions":
                    item = [{"approach": x} if isinstance(x, str) else x for x in item]
        out[k] = _normalize(item) if isinstance(item, dict) else item
    return out


def _confidence(value: Any) -> Any:
    """0.8, "0.8", "80%", 80 and "80" all mean 0.8; anything else is left for the schema to refuse."""
    if isinstance(value, str):
        text = value.strip()
        percent = text.endswith("%")
        try:
            number = float(text.rstrip("%").strip())
        except ValueError:
            return value
        return number / 100 if percent or 1 < number <= 100 else number
    if isinstance(value, int | float) and not isinstance(value, bool) and 1 < value <= 100:
        return value / 100
    return value


def _validate(model: type[BaseModel], data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "the answer"
        raise MalformedAnswer(f"invalid field {where}: {err['msg']}") from None


def parse_position(text: str) -> Position:
    found = last_json_object(strip_reasoning(text), _POSITION_KEYS, what="JSON object asked for")
    position: Position = _validate(Position, _normalize(found))
    return position


def parse_verdict(text: str) -> DecisionVerdict:
    data = _normalize(last_json_object(strip_reasoning(text), _VERDICT_KEYS, what="JSON object asked for"))
    if isinstance(data.get("verdict"), str):
        data["verdict"] = re.sub(r"[\s\-]+", "_", data["verdict"].strip().upper())
    if "confidence" in data:
        data["confidence"] = _confidence(data["confidence"])
    alt = data.get("better_alternative")
    if alt is None or (isinstance(alt, str) and alt.strip().lower().rstrip(".") in _NONE):
        data.pop("better_alternative", None)
    verdict: DecisionVerdict = _validate(DecisionVerdict, data)
    return verdict
