"""The bench's own registry of decision arms (`ARMS`): the decision modes that exist for the decision
benchmark's questions (decision/arms.py), registered here and nowhere else, so only `showcause bench` over
decision cases runs them, beside the decision modes."""

from __future__ import annotations

from showcause.core.errors import InputError
from showcause.decision.modes import DecisionMode
from showcause.decision.registry import DECISION_MODES
from showcause.judges.registry import ModeRegistry

__all__ = ["ARMS", "arm_names", "bench_decision_mode"]

# The bench's own registry: `showcause bench` over decision cases runs these beside the decision modes.
ARMS: ModeRegistry[DecisionMode] = ModeRegistry(
    "decision arm", "showcause.bench_arms",
    {"proposal_first_2pass": "showcause.decision.arms:PROPOSAL_FIRST_2PASS",
     "independent_only": "showcause.decision.arms:INDEPENDENT_ONLY",
     "decision_judge": "showcause.decision.arms:DECISION_JUDGE"},
    "review", "a code-change mode registers in group showcause.modes")


def arm_names() -> list[str]:
    """What `--modes` may name over decision cases: the decision modes, then the bench's arms."""
    return [*DECISION_MODES.names(), *ARMS.names()]


def bench_decision_mode(name: str | None, *, has_model: bool) -> DecisionMode:
    """A decision mode or, failing that, an arm; InputError naming both when neither has the name."""
    if name is None:
        return DECISION_MODES.chosen(None, has_model=has_model)
    found = DECISION_MODES.get(name) or ARMS.get(name)
    if found is None:
        raise InputError(f"unknown decision mode {name!r}; known: {', '.join(arm_names())}")
    return found
