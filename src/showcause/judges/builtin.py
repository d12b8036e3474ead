"""Registers the built-in review modes."""

from showcause.judges.base import register_mode
from showcause.judges.blind import BlindFirstJudge
from showcause.judges.change_modes import (
    EvidenceGateJudge,
    MaterialOnlyJudge,
    ProposalFirst2PassJudge,
    ProposalFirstJudge,
)
from showcause.judges.mechanical import MechanicalJudge

__all__: list[str] = []

for _judge in (MechanicalJudge(), EvidenceGateJudge(), MaterialOnlyJudge(), ProposalFirstJudge(),
               ProposalFirst2PassJudge(), BlindFirstJudge()):
    register_mode(_judge)
