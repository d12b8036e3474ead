"""Renumbering a forked ledger's calls: several models work at once, each on its own fork (`Ledger.fork`),
and their calls join the review's ledger in a fixed order (`Ledger.adopt`), so ids never depend on timing.

A fork numbers its own calls after the calls it started with, as if its model were alone. On adoption
those ids move to the review's next free ones; an id the fork never issued (a model citing a call it
cannot have seen) becomes T0, which no call ever has, so the gate still finds a cited call missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from showcause.core.claims import Claim, FinalAnswer
from showcause.core.records import ToolCall

__all__ = ["Renumbering"]

_ID = re.compile(r"(?<![\w$])T(\d+)(?![\w$])")
MISSING = "T0"   # ids start at T1: T0 names no call, yet is still read as a tool id


@dataclass(frozen=True)
class Renumbering:
    """Ids above `base` were a fork's own: `moved` maps each to its id in the review's ledger."""

    base: int
    moved: dict[str, str] = field(default_factory=dict)

    def id(self, old: str) -> str:
        m = _ID.fullmatch(old)
        if m is None or int(m[1]) <= self.base:
            return old
        return self.moved.get(old, MISSING)

    def text(self, value: str) -> str:
        return _ID.sub(lambda m: self.id(m[0]), value)

    def call(self, call: ToolCall) -> ToolCall:
        new = self.id(call.id)
        output = new + call.output[len(call.id):] if call.output.startswith(call.id) else call.output
        return replace(call, id=new, output=output,
                       artifacts=[replace(a, tool_call=self.id(a.tool_call)) for a in call.artifacts])

    def claim(self, claim: Claim) -> Claim:
        return claim.model_copy(update={
            "claim": self.text(claim.claim), "location": None if claim.location is None else self.text(claim.location),
            "fix": None if claim.fix is None else self.text(claim.fix),
            "evidence_refs": [self.text(r) for r in claim.evidence_refs]})

    def answer(self, answer: FinalAnswer) -> FinalAnswer:
        return answer.model_copy(update={"summary": self.text(answer.summary),
                                         "claims": [self.claim(c) for c in answer.claims]})
