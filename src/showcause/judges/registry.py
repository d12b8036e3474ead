"""The one registry of review modes (showcause.core.registry), and the rules read from their specs.

Each entry is a `Mode` whose `spec` (showcause.judges.contract) says everything the CLI, the service and the
bench need: a code-change mode is a `Judge` (``judge(request, ledger)``), a decision mode a `DecisionMode`
(``review(decision, options)``). `--mode NAME` is looked up by the spec's ``cli_name`` among the modes of
the input being reviewed, so two kinds may share a CLI name (`blind_first`) under distinct registry names.

Plugins add modes with `register_mode` or an entry point in group `showcause.modes` (name = the spec's
name, value = ``module:Class`` instantiated with no arguments, or an instance). A plugin never hides a
built-in: a taken registry name is refused, and `register_mode` also refuses a CLI name or a default that
a mode of the same input kind already has (for an entry point, the mode registered first wins both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from showcause.core.errors import InputError
from showcause.core.registry import DuplicateName, Registry
from showcause.judges.contract import BUDGET_GROUPS, CODE_CHANGE, DECISION, DefaultFor, InputKind, Mode, ModeSpec

if TYPE_CHECKING:   # the modules that define them are imported only when a mode of theirs is used
    from showcause.judges.base import Judge
    from showcause.judges.decision_modes import DecisionMode

__all__ = ["ENTRY_POINT_GROUP", "MODES", "all_modes", "budgets_markdown", "decision_mode", "default_mode", "find_mode",
           "get_mode", "judge_mode", "mode_names", "modes_markdown", "modes_text", "register_mode"]

ENTRY_POINT_GROUP = "showcause.modes"

# The order `showcause modes` and docs/modes.md list them in: the code-change modes, then the decision modes.
_BUILTINS = {
    "mechanical": "showcause.judges.mechanical:MechanicalJudge",
    "evidence_gate": "showcause.judges.change_modes:EvidenceGateJudge",
    "decision_judge": "showcause.judges.change_modes:MaterialOnlyJudge",
    "proposal_first": "showcause.judges.change_modes:ProposalFirstJudge",
    "proposal_first_2pass": "showcause.judges.change_modes:ProposalFirst2PassJudge",
    "blind_first": "showcause.judges.blind:BlindFirstJudge",
    "quorum": "showcause.judges.quorum_mode:QuorumJudge",
    "decision_blind_first": "showcause.judges.decision_modes:DecisionBlindFirst",
    "decision_proposal_first": "showcause.judges.decision_modes:DecisionProposalFirst",
    "decision_proposal_first_2pass": "showcause.judges.decision_arms:DecisionProposalFirst2Pass",
    "decision_independent_only": "showcause.judges.decision_arms:IndependentOnly",
    "decision_decision_judge": "showcause.judges.decision_arms:DecisionJudge",
}
_METHOD = {CODE_CHANGE: "judge", DECISION: "review"}   # what each input kind's modes must be able to do


def _adapt(name: str, loaded: object) -> Mode:
    mode = loaded() if isinstance(loaded, type) else loaded
    spec = getattr(mode, "spec", None)
    if not isinstance(spec, ModeSpec):
        raise TypeError(f"{loaded!r} is not a mode (it has no ModeSpec `spec`)")
    if spec.name != name:
        raise ValueError(f"the mode registered as {name!r} calls itself {spec.name!r}")
    if not callable(getattr(mode, _METHOD[spec.input], None)):
        raise TypeError(f"{spec.input} mode {name!r} has no {_METHOD[spec.input]}() method")
    return cast(Mode, mode)


MODES: Registry[Mode] = Registry("mode", ENTRY_POINT_GROUP, _BUILTINS, _adapt)


def _situations(default_for: DefaultFor | None) -> set[str]:
    return {"with_model", "without_model"} if default_for == "any" else {default_for} if default_for else set()


def register_mode(mode: Mode) -> Mode:
    """Add a mode under its spec's name (what a plugin calls). Refused (`DuplicateName`) when the name is
    taken, or when a mode of the same input kind already has its CLI name or the default it claims."""
    spec = _adapt(getattr(getattr(mode, "spec", None), "name", ""), mode).spec
    for other in (m.spec for m in MODES.entries()):
        if other.name == spec.name or other.input != spec.input:
            continue
        if other.cli_name == spec.cli_name:
            raise DuplicateName(f"{spec.input} mode {other.name!r} already answers to --mode {spec.cli_name}")
        if _situations(spec.default_for) & _situations(other.default_for):
            raise DuplicateName(f"{spec.input} mode {other.name!r} is already the default "
                                f"({other.default_for}); {spec.name!r} cannot be")
    MODES.register(spec.name, mode)
    return mode


def all_modes() -> list[Mode]:
    return MODES.entries()


def get_mode(name: str) -> Mode | None:
    """By registry name (`decision_blind_first`); `find_mode` looks a `--mode` value up."""
    return MODES.get(name)


def mode_names(input_kind: InputKind, *, bench: bool = False) -> list[str]:
    """The `--mode` values the modes of this input kind answer to, in registry order (``bench``: with the
    benchmark-only arms)."""
    return [m.spec.cli_name for m in all_modes() if m.spec.input == input_kind and (bench or not m.spec.bench_only)]


def find_mode(cli_name: str, input_kind: InputKind, *, bench: bool = False) -> Mode | None:
    """The mode `--mode cli_name` names for this input (the first registered, when plugins collide)."""
    return next((m for m in all_modes() if m.spec.input == input_kind and m.spec.cli_name == cli_name
                 and (bench or not m.spec.bench_only)), None)


def default_mode(input_kind: InputKind, has_model: bool) -> ModeSpec:
    """The mode that runs when `--mode` is not given: the first whose spec is the default for this input
    with (or without) a model. For a change, `mechanical` without a model and `evidence_gate` with one;
    for a decision, `blind_first` either way (it then asks for a model)."""
    found = next((m.spec for m in all_modes() if m.spec.default_in(input_kind, has_model)), None)
    if found is None:   # the built-ins cover every situation: only a broken registry gets here
        raise LookupError(f"no {input_kind} mode is the default {'with' if has_model else 'without'} a model")
    return found


def _chosen(cli_name: str | None, input_kind: InputKind, has_model: bool, bench: bool = False) -> Mode:
    name = cli_name if cli_name is not None else default_mode(input_kind, has_model).cli_name
    found = find_mode(name, input_kind, bench=bench)
    if found is None:
        known = mode_names(input_kind, bench=bench)
        if input_kind == DECISION:
            raise InputError(f"--decision takes --mode {' or '.join(known)}, not {name!r}")
        raise InputError(f"unknown mode {name!r}; known: {', '.join(known)}")
    return found


def judge_mode(cli_name: str | None, *, has_model: bool) -> Judge:
    """The code-change mode `--mode` names (its default when None); InputError for an unknown name."""
    return cast("Judge", _chosen(cli_name, CODE_CHANGE, has_model))


def decision_mode(cli_name: str | None, *, has_model: bool, bench: bool = False) -> DecisionMode:
    """The decision mode `--mode` names with `--decision` (its default when None); InputError when unknown.
    ``bench``: the benchmark-only arms too (`showcause bench` over decision cases)."""
    return cast("DecisionMode", _chosen(cli_name, DECISION, has_model, bench))


_DEFAULT_LABEL = {"without_model": "without a model", "with_model": "with a model", "any": "with or without a model"}


def _tools(spec: ModeSpec) -> str:
    return ", ".join(f"`{t}`" for t in spec.tools) or "none"


def modes_text() -> str:
    """What `showcause modes` prints: every mode, by input kind, with what its spec declares."""
    out: list[str] = []
    for kind, title in ((CODE_CHANGE, "A change (--case, --repo)"), (DECISION, "A decision (--decision FILE)")):
        out.append(f"{title}:")
        for spec in (m.spec for m in all_modes() if m.spec.input == kind):
            facts = [f"needs {spec.model_option}" if spec.needs_model else "no model",
                     f"tools: {', '.join(spec.tools) or 'none'}"]
            if spec.default_for is not None:
                facts.append(f"the default {_DEFAULT_LABEL[spec.default_for]}")
            out.append(f"  {spec.cli_name} ({'; '.join(facts)})\n      {spec.description}")
    return "\n".join(out) + "\n"


def modes_markdown() -> str:
    """The table of docs/modes.md, generated from the specs (a drift test compares the committed one)."""
    rows = ["| `--mode` | input | registry name | model | tools its ledger runs | passes | budget | default "
            "| what it is |", "|---|---|---|---|---|---|---|---|---|"]
    for spec in (m.spec for m in all_modes()):
        default = "" if spec.default_for is None else _DEFAULT_LABEL[spec.default_for]
        budget = f"`{spec.budget}`" if spec.budget else "none"
        rows.append(f"| `{spec.cli_name}` | {spec.input.replace('_', ' ')} | `{spec.name}` | "
                    f"{'yes' if spec.needs_model else 'none'} | {_tools(spec)} | {spec.passes} | {budget} | "
                    f"{default} | {spec.description} |")
    return "\n".join(rows) + "\n"


def budgets_markdown() -> str:
    """The budget groups a spec may name and the policy keys each reads (docs/modes.md, generated)."""
    rows = ["| budget group | policy keys it reads (`[review]`) | modes |", "|---|---|---|"]
    for group in BUDGET_GROUPS.values():
        users = ", ".join(f"`{m.spec.cli_name}` ({m.spec.input.replace('_', ' ')})" for m in all_modes()
                          if m.spec.budget == group.name) or "none"
        rows.append(f"| `{group.name}` | {', '.join(f'`{k}`' for k in group.keys)} | {users} |")
    return "\n".join(rows) + "\n"
