"""The judge protocol and the registry of review modes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from showcause.core.claims import FinalAnswer
from showcause.evidence.ledger import Ledger

__all__ = ["Judge", "JudgeAnswer", "ReviewRequest", "all_modes", "get_mode", "register_mode"]


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
    meta: dict[str, Any] = field(default_factory=dict)      # mode-specific additions to the result's meta


class Judge(Protocol):
    name: ClassVar[str]
    description: ClassVar[str]
    needs_model: ClassVar[bool]

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer: ...


_MODES: dict[str, Judge] = {}


def register_mode(judge: Judge) -> Judge:
    if judge.name in _MODES:
        raise ValueError(f"mode {judge.name!r} registered twice")
    _MODES[judge.name] = judge
    return judge


def _load() -> None:
    if not _MODES:
        from showcause.judges import builtin  # noqa: F401  (registers the built-in modes)


def all_modes() -> list[Judge]:
    _load()
    return list(_MODES.values())


def get_mode(name: str) -> Judge | None:
    _load()
    return _MODES.get(name)
