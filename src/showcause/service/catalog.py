"""What the service offers, read from the registries: the tools (schemas, docs) and the review modes."""

from __future__ import annotations

from showcause.judges.base import Judge, all_modes
from showcause.tools.registry import tool_schemas, tools_markdown, tools_text

__all__ = ["modes", "tool_schemas", "tools_markdown", "tools_text"]


def modes() -> list[Judge]:
    """The code-change modes, in registry order."""
    return all_modes()
