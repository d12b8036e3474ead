"""Agreement among the members of a gated-claims quorum, decided by artifact identity, never by a model.

Every member's claims are gated on their own first. Two claims are one finding when they share an
identity: the same failing test id, the same new type error (file, line, rule), the same retired name,
or the same cited location (path:line). Claims that share none with another stay a finding of their own
member. A finding with a validated claim blocks on the gate's authority, whoever and however many made
it; a finding without one is reported only when the weight of the members that made it reaches the
required weight, with the quorum's certainty score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from showcause.core.artifacts import Artifact
from showcause.core.claims import SEVERITY_ORDER, VERDICT_ORDER, most_severe
from showcause.core.records import GatedClaim
from showcause.evidence.gate import parse_ref
from showcause.quorum.result import certainty

__all__ = ["Finding", "MemberClaims", "effective_votes", "findings", "identity"]

Key = tuple[str, ...]


@dataclass
class MemberClaims:
    """One member's gated claims (`name` is its source name)."""

    name: str
    weight: int
    gated: list[GatedClaim]


@dataclass
class Finding:
    """Claims of one or more members that share an identity."""

    claims: list[tuple[str, GatedClaim]] = field(default_factory=list)   # (member name, claim)
    keys: set[Key] = field(default_factory=set)
    agreeing_weight: int = 0
    certainty: float = 0.0

    @property
    def members(self) -> list[str]:
        return list(dict.fromkeys(name for name, _ in self.claims))

    @property
    def validated(self) -> bool:
        return any(g.status == "validated" for _, g in self.claims)

    @property
    def lead(self) -> GatedClaim:
        """The claim that stands for the finding: validated first, then the most severe, then the first."""
        ranked = sorted(enumerate(self.claims), key=lambda ig: (
            ig[1][1].status != "validated", -VERDICT_ORDER.get(ig[1][1].claim.verdict, 0),
            -SEVERITY_ORDER.get(ig[1][1].claim.severity, 0), ig[0]))
        return ranked[0][1][1]


def _artifact_keys(a: Artifact) -> set[Key]:
    keys: set[Key] = set()
    if a.type == "test_regression":
        keys.add(("test", a.subject))
    elif a.type == "new_type_error":
        keys.add(("type_error", a.file, str(a.line), a.subject))
    elif a.type == "dangling_reference":
        keys.add(("name", a.subject))
    if a.line is not None:
        keys.add(("location", a.file, str(a.line)))
    return keys


def identity(g: GatedClaim) -> set[Key]:
    """What a claim is about, as comparable keys: its validated artifacts and the tests and locations it cites."""
    keys: set[Key] = set()
    for a in g.artifacts:
        keys |= _artifact_keys(a)
    for raw in [*g.claim.evidence_refs, *([g.claim.location] if g.claim.location else [])]:
        ref = parse_ref(raw)
        if ref.kind == "test":
            keys.add(("test", ref.text))
        elif ref.kind == "location":
            keys.add(("location", ref.file, str(ref.line)))
    return keys


def _group(members: Sequence[MemberClaims]) -> list[Finding]:
    out: list[Finding] = []
    for member in members:
        for g in member.gated:
            keys = identity(g)
            hits = [f for f in out if keys & f.keys] if keys else []
            merged = Finding()
            for f in hits:   # a claim may join findings that were apart until now
                merged.claims += f.claims
                merged.keys |= f.keys
                out.remove(f)
            merged.claims.append((member.name, g))
            merged.keys |= keys
            out.append(merged)
    return out


def findings(members: Sequence[MemberClaims], required_weight: int) -> list[Finding]:
    """The members' claims merged by identity, each with its agreeing weight and certainty score. A member's
    agreement with a finding is the share of the finding's keys its own claims there name (1 with no keys)."""
    weights = {m.name: m.weight for m in members}
    out = _group(members)
    for f in out:
        f.agreeing_weight = sum(weights[name] for name in f.members)
        shares = []
        for name in f.members:
            mine = set().union(*(identity(g) for n, g in f.claims if n == name))
            shares.append(len(mine & f.keys) / len(f.keys) if f.keys else 1.0)
        f.certainty = certainty(f.agreeing_weight, required_weight, shares)
    return out


def effective_votes(members: Sequence[MemberClaims], found: Sequence[Finding]) -> int:
    """How many independent votes the answered members cast: members with the same verdict and the same
    findings count as one."""
    votes = set()
    for m in members:
        mine = frozenset(i for i, f in enumerate(found) if m.name in f.members)
        votes.add((most_severe([g.verdict for g in m.gated]), mine))
    return len(votes)
