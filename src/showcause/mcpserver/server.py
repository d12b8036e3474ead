"""The MCP server: every tool of the one table (mcpserver/table.py: review_change, the registry tools,
review_decision, should_review, record_outcome, and with `--quorum FILE` the quorum's four) on an `MCPServer`,
and the full reviews as resources.

Arguments are checked against a tool's input schema before any work (a wrong type or an unknown key is a
tool error, code INVALID_INPUT). The work runs in a worker thread so the server keeps answering (other calls,
pings, cancellations) while a review runs; each call has its own cancellation scope, so a cancelled call's
sandboxed processes are killed at once and no other call's are. Each probe's start and end is reported as
progress.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import jsonschema
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations

from showcause.core.errors import Cancelled, InputError, ShowcauseError
from showcause.core.progress import reporting
from showcause.core.version import __version__
from showcause.mcpserver.results import error_result
from showcause.mcpserver.store import RESOURCE_TEMPLATE
from showcause.mcpserver.table import mcp_tools
from showcause.mcpserver.tools import ServerConfig
from showcause.sandbox.lifecycle import Scope

__all__ = ["build_server"]

_INSTRUCTIONS = ("showcause reviews a change and blocks it (MODIFY/REPLACE) only with mechanical proof from the "
                 "same review: a test the change broke, a type error it introduced, or a reference it left "
                 "dangling. Call review_change before you commit: it reviews the working tree of `repo` against "
                 "the merge-base with the default branch. should_review says (no model) whether a decision "
                 "deserves a review_decision.")

Work = Callable[[dict[str, Any]], CallToolResult]


def _placeholder() -> None:   # the SDK wants a function per tool; `work` is what runs
    return None


def _invalid(name: str, schema: dict[str, Any], arguments: dict[str, Any]) -> CallToolResult | None:
    problems = sorted(jsonschema.Draft202012Validator(schema).iter_errors(arguments),
                      key=lambda e: list(map(str, e.path)))
    if not problems:
        return None
    detail = "; ".join(f"{'.'.join(map(str, e.path)) or 'arguments'}: {e.message}" for e in problems[:5])
    return error_result(InputError(f"invalid arguments for {name}: {_short(detail)}"))


def _short(text: str, limit: int = 1_000) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def _guarded(work: Work, arguments: dict[str, Any], scope: Scope, progress: Callable[[str], None]) -> CallToolResult:
    """The handler in the call's scope; every failure a tool error with its code, never a traceback."""
    with scope.active(), reporting(progress):
        try:
            return work(arguments)
        except ShowcauseError as exc:
            return error_result(exc)
        except Exception as exc:   # a bug: one line for the client, like the CLI's INTERNAL_ERROR
            return error_result(ShowcauseError(f"internal error: {type(exc).__name__}: {_short(str(exc), 300)}"))


class _ShowcauseTool(Tool):
    """A tool whose input schema is given (not derived from a signature) and whose work is blocking."""

    work: Work | None = None

    async def run(self, arguments: dict[str, Any], context: Context[Any, Any],
                  convert_result: bool = False) -> CallToolResult:
        refused = _invalid(self.name, self.parameters, arguments)
        if refused is not None:
            return refused
        assert self.work is not None
        scope, steps, loop = Scope(), [0], anyio.lowlevel.current_token()

        def progress(message: str) -> None:   # called from the review's pool threads, not anyio's: name the loop
            steps[0] += 1
            anyio.from_thread.run(context.report_progress, steps[0], None, message, token=loop)

        try:
            return await anyio.to_thread.run_sync(_guarded, self.work, arguments, scope, progress,
                                                  abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            scope.cancel()   # the call's tests stop now; its thread unwinds with Cancelled
            raise
        except Cancelled:
            return error_result(ShowcauseError("the call was cancelled"))


def _tool(name: str, description: str, schema: dict[str, Any], work: Work,
          output_schema: dict[str, Any] | None = None, read_only: bool = True) -> Tool:
    tool = _ShowcauseTool.from_function(_placeholder, name=name, description=description, structured_output=False,
                                        annotations=ToolAnnotations(read_only_hint=read_only, open_world_hint=False))
    assert isinstance(tool, _ShowcauseTool)
    tool.work, tool.parameters = work, schema
    tool.fn_metadata.output_schema = output_schema
    return tool


def _tools(cfg: ServerConfig) -> list[Tool]:
    """The table's tools this server serves (the quorum's only with a quorum), each bound to its config."""
    return [_tool(t.name, t.description, t.input_schema(), functools.partial(t.work, cfg),
                  t.output_schema() if t.output_schema else None, t.read_only)
            for t in mcp_tools() if cfg.quorum is not None or not t.quorum]


def build_server(cfg: ServerConfig) -> MCPServer:
    """The server with every tool and the review resource; nothing runs until a client calls one."""
    server = MCPServer("showcause", version=__version__, instructions=_INSTRUCTIONS, tools=_tools(cfg),
                       log_level="WARNING")

    @server.resource(RESOURCE_TEMPLATE, name="review", mime_type="application/json",
                     description="The whole result of a review_change call of this server (kept for an hour).")
    def review(review_id: str) -> str:
        doc = cfg.store.get(review_id)
        if doc is None:
            raise ValueError(f"no review {review_id} on this server (results are kept for an hour)")
        return json.dumps(doc, ensure_ascii=False)

    return server
