"""The bench's quorum arms: `--modes quorum` reviews each case with the sources of a quorum configuration
(`--quorum FILE`, else the `[quorum]` table of `--config`), and a single-model mode named beside it runs
once per source when no `--model` is given, so the report sets the quorum against each of its members.

Records name the quorum `quorum:<file stem>` and a member `member:<source name>`; neither is a provider
prefix: a member's reviews get that source's own client (its base URL, key variable or command) through
`providers.registry.supplying_providers`. A quorum record's reserve is the sum of its members' reserves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from showcause.bench.costs import price_per_token, review_reserve
from showcause.core.errors import InputError
from showcause.policy import Policy
from showcause.providers.base import Provider


class Source(Protocol):
    """What the bench reads of a quorum source (the service's `load_quorum` makes them)."""

    @property
    def name(self) -> str: ...
    @property
    def api_type(self) -> str: ...
    @property
    def base_url(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def api_key_env(self) -> str | None: ...
    @property
    def tier(self) -> int: ...
    @property
    def weight(self) -> int: ...


class _Config(Protocol):
    @property
    def sources(self) -> Sequence[Source]: ...


class Peers(Protocol):
    """What the bench uses of a loaded quorum."""

    @property
    def config(self) -> _Config: ...
    def available(self, source: Any) -> bool: ...
    def provider(self, source: Any) -> Provider: ...

__all__ = ["MEMBER_PREFIX", "QUORUM_MODE", "QUORUM_PREFIX", "QuorumArms", "load_arms", "quorum_summary"]

QUORUM_MODE = "quorum"
QUORUM_PREFIX = "quorum:"
MEMBER_PREFIX = "member:"


def _spec(source: Source) -> str:
    """The provider spec a source's model would have: what its price is looked up by."""
    return f"{source.api_type}:{source.model}"


@dataclass(frozen=True)
class QuorumArms:
    quorum: Path | None        # --quorum; None: the [quorum] table of `config`
    config: Path | None
    label: str                 # the quorum's records' `model`
    text: str                  # the configuration as read: a changed file refuses a resume
    peers: Peers

    @property
    def members(self) -> dict[str, Source]:
        return {MEMBER_PREFIX + s.name: s for s in self.peers.config.sources}

    def describe(self) -> dict[str, Any]:
        """For the results' provenance: the arm names and what each member is."""
        return {"label": self.label, "file": str(self.quorum or self.config), "members": {
            label: {"source": s.name, "model": s.model, "api_type": s.api_type, "tier": s.tier, "weight": s.weight}
            for label, s in self.members.items()}}

    def owns(self, model: str | None) -> bool:
        return model == self.label or model in self.members

    def base_urls(self, with_members: bool) -> dict[str, str | None]:
        urls: dict[str, str | None] = {self.label: None}
        return urls | ({label: s.base_url for label, s in self.members.items()} if with_members else {})

    def price(self, model: str) -> tuple[float, float] | None:
        """A member's price per token; the quorum's: the dearest member's (what a lost call is charged at),
        None when any member's is unknown."""
        sources = list(self.peers.config.sources) if model == self.label else [self.members[model]]
        prices = [price_per_token(_spec(s)) for s in sources]
        if any(p is None for p in prices):
            return None
        known = [p for p in prices if p is not None]
        return (max(p[0] for p in known), max(p[1] for p in known))

    def reserve(self, mode: str, model: str, unpriced: float, limits: Policy) -> float:
        """A member's reserve as its model's; the quorum's, every member's (each has a whole review's budget)."""
        if model == self.label:
            return sum(review_reserve(mode, _spec(s), unpriced, limits) for s in self.peers.config.sources)
        return review_reserve(mode, _spec(self.members[model]), unpriced, limits)

    def supplied(self) -> dict[str, Callable[[], Provider]]:
        """Each member's spec and the factory of its source's own client."""
        def factory(source: Source) -> Callable[[], Provider]:
            return lambda: self.peers.provider(source)
        return {label: factory(s) for label, s in self.members.items()}

    def check_members(self) -> None:
        """A member arm whose key cannot be resolved would fail every record: bad input now."""
        for source in self.peers.config.sources:
            if not self.peers.available(source):
                raise InputError(f"quorum source {source.name}: its key variable {source.api_key_env} is not set "
                                 "(set it, or name the models to compare with --model)")


def load_arms(quorum: Path | None, config: Path | None) -> QuorumArms:
    """The quorum of `--quorum`, else of the `[quorum]` table of `--config` (exit 2 when neither holds one)."""
    from showcause.service.quorum import load_quorum


    if quorum is None and config is None:
        raise InputError("--modes quorum needs its sources: --quorum FILE, or --config FILE with a [quorum] table")
    chosen = quorum if quorum is not None else config
    assert chosen is not None
    peers: Peers = load_quorum(quorum, config=None if quorum is not None else config)
    text = chosen.read_text(encoding="utf-8") if quorum is not None else ""   # --config is in the identity already
    return QuorumArms(quorum, config, QUORUM_PREFIX + chosen.stem, text, peers)


def quorum_summary(quorum: Any) -> dict[str, Any] | None:
    """What a quorum record keeps of its review's `meta.quorum`: votes, tiers, members and cost."""
    if not isinstance(quorum, dict):
        return None
    members = [{k: m.get(k) for k in ("name", "tier", "weight", "status", "verdict", "tokens", "cost_usd")}
               for m in quorum.get("members", [])]
    return {"effective_votes": quorum.get("effective_votes"), "tiers": quorum.get("tiers"),
            "required_weight": quorum.get("required_weight"), "members": members, "cost": quorum.get("cost")}
