"""The judge protocol and the registry of review modes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from showcause.evidence.ledger import Ledger
from showcause.review.claims import FinalAnswer

__all__ = ["Judge", "JudgeAnswer", "ReviewRequest", "all_modes", "get_mode", "register_mode"]


@dataclass
class ReviewRequest:
    task: str = ""
    plan: str = ""
    model: str | None = None
    base_url: str | None = None


@dataclass
class JudgeAnswer:
    answer: FinalAnswer
    model: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    prompts: dict[str, str] = field(default_factory=dict)   # prompt name -> hash


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
