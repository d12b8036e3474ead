"""Registers the built-in review modes."""

from showcause.judges.base import register_mode
from showcause.judges.blind import BlindFirstJudge
from showcause.judges.llm import DecisionJudge, EvidenceGateJudge, ProposalFirst2PassJudge, ProposalFirstJudge
from showcause.judges.mechanical import MechanicalJudge

__all__: list[str] = []

for _judge in (MechanicalJudge(), EvidenceGateJudge(), DecisionJudge(), ProposalFirstJudge(),
               ProposalFirst2PassJudge(), BlindFirstJudge()):
    register_mode(_judge)
