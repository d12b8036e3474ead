"""Registers the built-in review modes."""

from showcause.judges.base import register_mode
from showcause.judges.mechanical import MechanicalJudge

__all__: list[str] = []

register_mode(MechanicalJudge())
