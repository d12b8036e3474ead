"""What the service offers, read from the registries: the tools (schemas, docs) and the review modes."""

from __future__ import annotations

from showcause.judges.contract import ModeSpec
from showcause.judges.registry import all_modes, modes_markdown, modes_text
from showcause.tools.registry import tool_schemas, tools_markdown, tools_text

__all__ = ["modes", "modes_markdown", "modes_text", "tool_schemas", "tools_markdown", "tools_text"]


def modes() -> list[ModeSpec]:
    """Every mode's spec (the code-change modes, then the decision modes), in registry order."""
    return [m.spec for m in all_modes()]
