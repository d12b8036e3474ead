"""The façade for one tool call on a snapshot (`showcause tools run`, and an MCP client's tool calls)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from showcause.core import jsonsafe
from showcause.core.errors import InputError
from showcause.core.records import ToolCall
from showcause.evidence.ledger import Ledger
from showcause.service.change import ChangeSource
from showcause.service.inputs import open_snapshot, tool_context
from showcause.tools.registry import all_tools, get_tool

__all__ = ["check_tool", "parse_tool_args", "run_tool"]


def check_tool(name: str) -> None:
    if get_tool(name) is None:
        raise InputError(f"unknown tool {name!r}; known: {', '.join(t.name for t in all_tools())}")


def parse_tool_args(text: str) -> dict[str, Any]:
    """A tool's arguments from JSON text, bounded like a model's; anything else is an InputError."""
    return jsonsafe.loads_input(text, max_bytes=jsonsafe.MAX_ARGS_BYTES, label="--args", refused=" refused")


def run_tool(source: ChangeSource, name: str, args: Any, *, config: Path | None = None,
             isolation: str | None = None, python: Path | None = None) -> ToolCall:
    """One call on the head tree, recorded as a ledger would record it (refused arguments give ``ok`` false;
    a call no sandbox could run gives ``error`` SANDBOX_UNAVAILABLE)."""
    check_tool(name)
    with open_snapshot(case=source.case, repo=source.repo, diff=source.diff, base=source.base,
                       head=source.head) as snap:
        return Ledger(tool_context(snap, config, isolation=isolation, python=python)).call(name, args)
