"""`DECISION_MODES`: the decision modes, by the name `--mode` gives them with `--decision`.

A decision mode is a `DecisionMode` (``review(decision, options)``); plugins add one with
`register_decision_mode` or an entry point in group `showcause.decision_modes` (as a code-change mode does
in `showcause.modes`, judges/registry.py). Without `--mode`, `blind_first` runs (with or without a model;
it then asks for one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from showcause.judges.registry import ModeRegistry

if TYPE_CHECKING:
    from showcause.core.decision import DecisionInput
    from showcause.core.decision_result import DecisionResult
    from showcause.decision.modes import DecisionMode, DecisionOptions

__all__ = ["DECISION_MODES", "ENTRY_POINT_GROUP", "decision_mode", "register_decision_mode", "run_decision"]

ENTRY_POINT_GROUP = "showcause.decision_modes"

DECISION_MODES: ModeRegistry[DecisionMode] = ModeRegistry(
    "decision mode", ENTRY_POINT_GROUP,
    {"blind_first": "showcause.decision.modes:DecisionBlindFirst",
     "proposal_first": "showcause.decision.modes:DecisionProposalFirst"},
    "review", "a code-change mode registers in group showcause.modes")


def register_decision_mode(mode: DecisionMode) -> DecisionMode:
    """Add a decision mode (`ModeRegistry.register`)."""
    return DECISION_MODES.register(mode)


def decision_mode(name: str | None, *, has_model: bool) -> DecisionMode:
    """The decision mode ``name`` names (`blind_first` when None); InputError naming the known ones."""
    return DECISION_MODES.chosen(name, has_model=has_model)


def run_decision(decision: DecisionInput, mode: str, options: DecisionOptions) -> DecisionResult:
    """Review a decision in decision mode ``mode``."""
    return decision_mode(mode, has_model=bool(options.model)).review(decision, options)
