"""What the service offers, read from the registries: the tools (schemas, docs) and the review modes of both
registries (code-change modes, then decision modes), as lists, JSON and the generated tables of docs/modes.md."""

from __future__ import annotations

import dataclasses
from typing import Any

from showcause.decision.registry import DECISION_MODES
from showcause.judges.contract import BUDGET_GROUPS, ModeSpec
from showcause.judges.registry import CHANGE_MODES
from showcause.tools.registry import tool_schemas, tools_markdown, tools_text

__all__ = ["DEFAULT_LABEL", "budgets_markdown", "change_modes", "decision_modes", "mode_kinds", "modes_json",
           "modes_markdown", "tool_schemas", "tools_markdown", "tools_text"]

DEFAULT_LABEL = {"without_model": "without a model", "with_model": "with a model", "any": "with or without a model"}


def change_modes() -> list[ModeSpec]:
    """The code-change modes' specs (`--mode` without `--decision`), in registry order."""
    return [m.spec for m in CHANGE_MODES.all()]


def decision_modes() -> list[ModeSpec]:
    """The decision modes' specs (`--mode` with `--decision`), in registry order."""
    return [m.spec for m in DECISION_MODES.all()]


def mode_kinds() -> list[tuple[str, list[ModeSpec]]]:
    """(what a mode reviews, its registry's specs): `code_change` then `decision`, the order every list
    and table of modes follows."""
    return [("code_change", change_modes()), ("decision", decision_modes())]


def modes_json() -> list[dict[str, Any]]:
    """`showcause modes --json`: every spec, with what it reviews (`input`) and the name `--mode` takes
    (`cli_name`, now always its name: a name is unique within its registry)."""
    out = []
    for kind, specs in mode_kinds():
        for spec in specs:
            data = dataclasses.asdict(spec)
            out.append({"name": data.pop("name"), "description": data.pop("description"), "input": kind, **data,
                        "cli_name": spec.name})
    return out


def _tools(spec: ModeSpec) -> str:
    return ", ".join(f"`{t}`" for t in spec.tools) or "none"


def modes_markdown() -> str:
    """The table of docs/modes.md, generated from the specs (a drift test compares the committed one)."""
    rows = ["| `--mode` | input | model | tools its ledger runs | passes | budget | default | what it is |",
            "|---|---|---|---|---|---|---|---|"]
    for kind, specs in mode_kinds():
        for spec in specs:
            default = "" if spec.default_for is None else DEFAULT_LABEL[spec.default_for]
            budget = f"`{spec.budget}`" if spec.budget else "none"
            rows.append(f"| `{spec.name}` | {kind.replace('_', ' ')} | {'yes' if spec.needs_model else 'none'} | "
                        f"{_tools(spec)} | {spec.passes} | {budget} | {default} | {spec.description} |")
    return "\n".join(rows) + "\n"


def budgets_markdown() -> str:
    """The budget groups a spec may name and the policy keys each reads (docs/modes.md, generated)."""
    rows = ["| budget group | policy keys it reads (`[review]`) | modes |", "|---|---|---|"]
    for group in BUDGET_GROUPS.values():
        users = ", ".join(f"`{spec.name}` ({kind.replace('_', ' ')})" for kind, specs in mode_kinds()
                          for spec in specs if spec.budget == group.name) or "none"
        rows.append(f"| `{group.name}` | {', '.join(f'`{k}`' for k in group.keys)} | {users} |")
    return "\n".join(rows) + "\n"
