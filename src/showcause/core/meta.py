"""The typed `meta` of a result: `ReviewMeta` (a review of a change), `DecisionMeta` (a review of a decision),
and `JudgeMeta` (what a judge, or a step that failed, adds to a review's meta).

The JSON of a meta is part of the stable result (docs/gate.md, docs/modes.md), so `to_json` fixes its keys
and their order: the fields every result carries first, then the optional ones that are set (None: absent),
then `extras` (a mode's own data, such as a quorum's `quorum`), then what was added after the review
(`telemetry_error`, and `truncated` on a result the MCP server cut). `from_json` reads it back: a key it does
not know goes to `extras`, so a result round-trips.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

__all__ = ["DecisionMeta", "JudgeMeta", "ReviewMeta"]

_M = TypeVar("_M", "ReviewMeta", "DecisionMeta")

# Every review result carries these, in this order, set or not.
_REVIEW_HEAD = ("mode", "model", "usage", "cost_usd", "seconds", "isolation", "warnings", "review_id")
# A completed review: what the service settled (claims_dropped is always set), then what the judge added.
_REVIEW_SETTLED = ("notes", "prompts", "claims_dropped", "blindness", "phases", "budget_exhausted", "model_error")
# A review that failed has no claims_dropped: after the head comes what the judge had reported when it failed,
# in the order it reported it (a blind review names its prompts after its phase).
_REVIEW_FAILED = ("notes", "blindness", "phases", "prompts", "budget_exhausted", "model_error")
_REVIEW_TAIL = ("telemetry_error", "truncated")
_DECISION_HEAD = ("mode", "input", "model", "phases", "usage", "cost_usd", "seconds", "review_id", "blindness")
_DECISION_REST = ("prompts", "budget_exhausted")
_DECISION_TAIL = ("telemetry_error",)


@dataclass
class JudgeMeta:
    """What a judge adds to its review's meta (`JudgeAnswer.meta`), and what a step that failed still reports
    (`ShowcauseError.meta`); a field left None adds nothing."""

    blindness: dict[str, Any] | None = None     # the blindness check (judges/blindness.py `to_meta`)
    phases: int | None = None                   # how far a blind review got: 0, 1 or 2
    prompts: dict[str, str] | None = None       # a failed review's prompts (a completed one: JudgeAnswer.prompts)
    budget_exhausted: bool | None = None        # the budget ran out before the last phase could start
    model_error: dict[str, str] | None = None   # the model failed after the probes; their evidence stands
    extras: dict[str, Any] = field(default_factory=dict)   # a mode's own data (`quorum`)

    def merged(self, later: JudgeMeta) -> JudgeMeta:
        """A copy of this with what `later` sets over it."""
        out = replace(self, extras=dict(self.extras))
        _overlay(out, later)
        return out


def _overlay(target: JudgeMeta | ReviewMeta, judge: JudgeMeta) -> None:
    """Set on `target` every field `judge` sets, and add its extras."""
    for name in _JUDGE_FIELDS:
        value = getattr(judge, name)
        if value is not None:
            setattr(target, name, value)
    target.extras.update(judge.extras)


@dataclass
class ReviewMeta:
    """`ReviewResult.meta`: how a review of a change ran (docs/gate.md, docs/modes.md)."""

    mode: str = ""
    model: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)    # token counts (the provider's keys)
    cost_usd: float | None = None
    seconds: float = 0.0
    isolation: str = "unavailable"     # the weakest sandbox level a probe ran at (bwrap, unshare, none)
    warnings: list[str] = field(default_factory=list)      # said before the verdict in every format
    review_id: str = ""
    notes: list[str] | None = None           # what the review could not check (no tests found …)
    prompts: dict[str, str] | None = None    # prompt name -> hash
    claims_dropped: int | None = None        # claims the cap left out; set on every completed review
    blindness: dict[str, Any] | None = None
    phases: int | None = None
    budget_exhausted: bool | None = None
    model_error: dict[str, str] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    telemetry_error: str | None = None       # the telemetry log could not be written (service/telemetry.py)
    truncated: dict[str, Any] | None = None  # set by the MCP server on the JSON of a result it cut

    def add(self, judge: JudgeMeta) -> None:
        """What the judge (or the step that failed) reported, as part of this meta."""
        _overlay(self, judge)

    def to_json(self) -> dict[str, Any]:
        rest = _REVIEW_SETTLED if self.claims_dropped is not None else _REVIEW_FAILED
        return _ordered(self, _REVIEW_HEAD, rest, _REVIEW_TAIL)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReviewMeta:
        return _read(cls, data)


@dataclass
class DecisionMeta:
    """`DecisionResult.meta`: how a review of a decision ran (docs/modes.md)."""

    mode: str = ""
    input: str = "decision"
    model: str | None = None
    phases: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    seconds: float = 0.0
    review_id: str = ""
    blindness: dict[str, Any] = field(default_factory=dict)
    prompts: dict[str, str] | None = None
    budget_exhausted: bool | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    telemetry_error: str | None = None

    def name_prompts(self, prompts: Mapping[str, str]) -> None:
        """Add prompts (name -> hash) to those named so far."""
        self.prompts = {**(self.prompts or {}), **prompts}

    def to_json(self) -> dict[str, Any]:
        return _ordered(self, _DECISION_HEAD, _DECISION_REST, _DECISION_TAIL)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DecisionMeta:
        return _read(cls, data)


_JUDGE_FIELDS = tuple(f.name for f in fields(JudgeMeta) if f.name != "extras")


def _set(meta: object, names: Iterable[str]) -> Iterable[tuple[str, Any]]:
    return ((n, v) for n in names if (v := getattr(meta, n)) is not None)


def _ordered(meta: ReviewMeta | DecisionMeta, head: tuple[str, ...], rest: tuple[str, ...],
             tail: tuple[str, ...]) -> dict[str, Any]:
    data = {name: getattr(meta, name) for name in head}
    data.update(_set(meta, rest))
    data.update(meta.extras)
    data.update(_set(meta, tail))
    return data


def _read(cls: type[_M], data: Mapping[str, Any]) -> _M:
    known = {f.name for f in fields(cls)} - {"extras"}
    return cls(**{k: v for k, v in data.items() if k in known},
               extras={k: v for k, v in data.items() if k not in known})
