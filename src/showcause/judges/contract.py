"""What every review mode declares (`ModeSpec`) and the protocol both mode registries hold (`Mode`).

The registries, the CLI, the service and the bench read a mode's spec instead of knowing mode names: whether
it needs a model, which tools its ledger runs, how many passes the bench reserves money for, which budget
group of the policy it reads and which situation it is the default for. What a mode reviews is not in its
spec: it is which registry holds it (`judges.registry.CHANGE_MODES` for a code change,
`decision.registry.DECISION_MODES` for a decision document), each with its own protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal, Protocol, get_args

from showcause.core.errors import ModelRequired
from showcause.judges.budget import Budget
from showcause.policy import Policy

__all__ = ["BUDGET_GROUPS", "BudgetGroup", "DefaultFor", "Mode", "ModeSpec", "mode_budget", "model_budget",
           "require_model"]

# The situation a mode is the default for, within its registry ("any": with or without a model).
DefaultFor = Literal["without_model", "with_model", "any"]


@dataclass(frozen=True)
class BudgetGroup:
    """A set of the policy's keys one review's `Budget` is made from."""

    name: str
    keys: tuple[str, ...]                 # the policy keys it reads (sandbox/policy.toml, --config)
    build: Callable[[Policy], Budget]


_REVIEW_KEYS = ("max_tool_calls", "max_review_tokens", "max_completion_tokens", "review_timeout_s", "max_turns")
BUDGET_GROUPS: dict[str, BudgetGroup] = {g.name: g for g in (
    BudgetGroup("review", _REVIEW_KEYS, Budget.from_policy),
    # blind_first on a change: its own tokens, deadline and turns, the same tool calls and completions.
    BudgetGroup("blind_review", ("max_tool_calls", "max_completion_tokens", "blind_max_review_tokens",
                                 "blind_review_timeout_s", "blind_max_turns"), Budget.blind_from_policy),
)}


@dataclass(frozen=True)
class ModeSpec:
    """A review mode's contract.

    ``name`` is unique in its registry and is what `--mode` calls it (with `--decision`, among the decision
    modes: `blind_first` names one mode in each registry). ``tools`` are the only tools its ledger runs, in
    the order a model is shown them. ``passes`` is how many times one review may spend its whole budget (the
    bench reserves that much; blind_first's two phases share one budget, so it is 1; a mode without a model
    has 0). ``budget`` names the policy's budget group it reads (`BUDGET_GROUPS`), None for none.
    ``default_for`` is the situation, within its registry, where it runs when `--mode` is not given.
    ``model_option`` is the command-line option that gives a mode that needs a model its model(s).
    """

    name: str
    description: str
    needs_model: bool = True
    tools: tuple[str, ...] = ()
    passes: int = 1
    budget: str | None = "review"
    default_for: DefaultFor | None = None
    model_option: str = "--model"   # the option that gives it its model(s): `--quorum` for the quorum mode

    def __post_init__(self) -> None:
        if not self.name or not self.description:
            raise ValueError("a mode needs a name and a description")
        if self.default_for is not None and self.default_for not in get_args(DefaultFor):
            raise ValueError(f"mode {self.name!r}: default_for must be one of {get_args(DefaultFor)} or None")
        if self.budget is not None and self.budget not in BUDGET_GROUPS:
            raise ValueError(f"mode {self.name!r}: budget must be one of {sorted(BUDGET_GROUPS)} or None")
        if self.passes < 0 or (not self.needs_model and self.passes):
            raise ValueError(f"mode {self.name!r}: passes must be 0 without a model, and never negative")
        if len(set(self.tools)) != len(self.tools):
            raise ValueError(f"mode {self.name!r}: a tool is named twice")

    def default_in(self, has_model: bool) -> bool:
        """Whether this mode runs when `--mode` is not given (among its registry's) with (or without) a model."""
        return self.default_for in ("with_model" if has_model else "without_model", "any")


class Mode(Protocol):
    """What a mode registry holds; `Judge` (a code change) and `DecisionMode` (a decision) build on it."""

    spec: ClassVar[ModeSpec]


def mode_budget(spec: ModeSpec, policy: Policy) -> Budget | None:
    """The budget one review of this mode runs under, from ``policy``; None for a mode that reads none."""
    return None if spec.budget is None else BUDGET_GROUPS[spec.budget].build(policy)


def model_budget(spec: ModeSpec, policy: Policy) -> Budget:
    """`mode_budget` for a mode that runs a model: its spec must name a budget group."""
    budget = mode_budget(spec, policy)
    if budget is None:
        raise ValueError(f"mode {spec.name!r} runs a model but its spec names no budget group")
    return budget


def require_model(spec: ModeSpec, model: str | None, kind: str = "mode") -> str:
    """``model``, or `ModelRequired` when none is configured (whoever runs a mode whose spec `needs_model`
    calls this first: the review service, the decision service, the bench, and each model-driven mode).
    ``kind`` is what the message calls the mode ("decision mode" for one of the decision registry)."""
    if not model:
        raise ModelRequired(f"{kind} {spec.name!r} needs a model: `model` provider:model "
                            "(e.g. openai:gpt-5-mini)")
    return model
