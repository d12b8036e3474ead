"""The registry of code-change modes (`CHANGE_MODES`), and `ModeRegistry`, which the decision modes'
registry (showcause.decision.registry) and the bench's arms are made of too.

Each entry is a mode whose `spec` (showcause.judges.contract) says everything the CLI, the service and the
bench need; a code-change mode is a `Judge` (``judge(request, ledger)``). A name means one mode per
registry: `--mode blind_first` is the change mode here, and with `--decision` the decision mode there.

Plugins add modes with `register_mode` or an entry point in group `showcause.modes` (name = the spec's
name, value = ``module:Class`` instantiated with no arguments, or an instance); decision modes use the group
`showcause.decision_modes`. A plugin never hides a built-in: a taken name is refused, and `register` also
refuses a default that a mode of the same registry already claims (for an entry point, the first wins).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from showcause.core.errors import InputError
from showcause.core.registry import DuplicateName, Registry
from showcause.judges.contract import DefaultFor, Mode, ModeSpec

if TYPE_CHECKING:   # the modules that define them are imported only when a mode of theirs is used
    from showcause.judges.base import Judge

__all__ = ["CHANGE_MODES", "ENTRY_POINT_GROUP", "ModeRegistry", "default_mode", "get_mode", "judge_mode",
           "mode_names", "register_mode"]

ENTRY_POINT_GROUP = "showcause.modes"
M = TypeVar("M", bound=Mode)

# The order `showcause modes` and docs/modes.md list them in.
_BUILTINS = {
    "mechanical": "showcause.judges.mechanical:MechanicalJudge",
    "evidence_gate": "showcause.judges.change_modes:EvidenceGateJudge",
    "decision_judge": "showcause.judges.change_modes:MaterialOnlyJudge",
    "proposal_first": "showcause.judges.change_modes:ProposalFirstJudge",
    "proposal_first_2pass": "showcause.judges.change_modes:ProposalFirst2PassJudge",
    "blind_first": "showcause.judges.blind:BlindFirstJudge",
    "quorum": "showcause.judges.quorum_mode:QuorumJudge",
}


def _situations(default_for: DefaultFor | None) -> set[str]:
    return {"with_model", "without_model"} if default_for == "any" else {default_for} if default_for else set()


class ModeRegistry(Generic[M]):
    """The modes of one protocol: ``method`` is what each must be able to do (`judge`, `review`), ``kind``
    what messages call one ("mode", "decision mode"), ``elsewhere`` where a mode of the other protocol
    belongs (said when one is registered here by mistake)."""

    def __init__(self, kind: str, group: str, builtins: Mapping[str, str], method: str, elsewhere: str) -> None:
        self.kind, self.method, self.elsewhere = kind, method, elsewhere
        self.entries: Registry[M] = Registry(kind, group, builtins, self._adapt)

    def _adapt(self, name: str, loaded: object) -> M:
        mode = loaded() if isinstance(loaded, type) else loaded
        spec = getattr(mode, "spec", None)
        if not isinstance(spec, ModeSpec):
            raise TypeError(f"{loaded!r} is not a mode (it has no ModeSpec `spec`)")
        if spec.name != name:
            raise ValueError(f"the {self.kind} registered as {name!r} calls itself {spec.name!r}")
        if not callable(getattr(mode, self.method, None)):
            raise TypeError(f"{self.kind} {name!r} has no {self.method}() method ({self.elsewhere})")
        return cast(M, mode)

    def register(self, mode: M) -> M:
        """Add a mode under its spec's name (what a plugin calls). Refused (`DuplicateName`) when the name is
        taken, or when a mode here already is the default it claims."""
        spec = self._adapt(getattr(getattr(mode, "spec", None), "name", ""), mode).spec
        for other in (m.spec for m in self.all()):
            if other.name != spec.name and _situations(spec.default_for) & _situations(other.default_for):
                raise DuplicateName(f"{self.kind} {other.name!r} is already the default ({other.default_for}); "
                                    f"{spec.name!r} cannot be")
        self.entries.register(spec.name, mode)
        return mode

    def all(self) -> list[M]:
        return self.entries.entries()

    def names(self) -> list[str]:
        """The `--mode` values, in registry order."""
        return [m.spec.name for m in self.all()]

    def get(self, name: str) -> M | None:
        return self.entries.get(name)

    def default(self, has_model: bool) -> ModeSpec:
        """The mode that runs when `--mode` is not given: the first whose spec is the default with (or
        without) a model."""
        found = next((m.spec for m in self.all() if m.spec.default_in(has_model)), None)
        if found is None:   # the built-ins cover every situation: only a broken registry gets here
            raise LookupError(f"no {self.kind} is the default {'with' if has_model else 'without'} a model")
        return found

    def chosen(self, name: str | None, *, has_model: bool) -> M:
        """The mode ``name`` names (the default when None); InputError naming the known ones when unknown."""
        wanted = name if name is not None else self.default(has_model).name
        found = self.get(wanted)
        if found is None:
            raise InputError(f"unknown {self.kind} {wanted!r}; known: {', '.join(self.names())}")
        return found


CHANGE_MODES: ModeRegistry[Judge] = ModeRegistry(
    "mode", ENTRY_POINT_GROUP, _BUILTINS, "judge", "a decision mode registers in group showcause.decision_modes")


def register_mode(mode: Judge) -> Judge:
    """Add a code-change mode (`ModeRegistry.register`)."""
    return CHANGE_MODES.register(mode)


def get_mode(name: str) -> Judge | None:
    return CHANGE_MODES.get(name)


def mode_names() -> list[str]:
    return CHANGE_MODES.names()


def default_mode(has_model: bool) -> ModeSpec:
    """`mechanical` without a model, `evidence_gate` with one (what the specs declare)."""
    return CHANGE_MODES.default(has_model)


def judge_mode(name: str | None, *, has_model: bool) -> Judge:
    """The code-change mode `--mode` names (its default when None); InputError for an unknown name."""
    return CHANGE_MODES.chosen(name, has_model=has_model)
