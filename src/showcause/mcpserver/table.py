"""The one table of the MCP server's tools: for each, its name, description, schemas, handler and whether it
only exists with `--quorum FILE`. The server builds every tool from it (server.py); nothing else declares one.

The registry tools are one entry each, made from the tool registry (their names, descriptions and input
schemas are the registry's, as `showcause tools list` prints them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult

from showcause.mcpserver import quorum_tools as quorum
from showcause.mcpserver import schemas as S
from showcause.mcpserver import tools as handlers
from showcause.mcpserver.tools import ServerConfig

__all__ = ["McpTool", "mcp_tools"]

Work = Callable[[ServerConfig, dict[str, Any]], CallToolResult]
Schema = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class McpTool:
    name: str
    description: str
    input_schema: Schema
    work: Work
    output_schema: Schema | None = None
    read_only: bool = True
    quorum: bool = False   # served only when the server was started with a quorum (`--quorum FILE`)


_CORE = (
    McpTool(S.REVIEW_CHANGE,
            "Review a change in a repository: by default the working tree (committed, staged, unstaged and "
            "untracked files) against the merge-base of HEAD with the default branch. Returns the review result "
            "(verdict KEEP, WARNING, MODIFY, REPLACE or INCONCLUSIVE, claims with the artifacts that validate "
            "them, every tool call).",
            S.review_input_schema, handlers.review_change, S.review_output_schema),
)
_AFTER_REGISTRY = (
    McpTool(S.REVIEW_DECISION,
            "Review a decision (a problem and a proposed solution, no code) with the server's model: blind_first "
            "forms its own view before it reads the proposal. Verdict KEEP, MODIFY, REPLACE or "
            "INSUFFICIENT_EVIDENCE with risks, assumptions, an alternative and a probe.",
            S.decision_input_schema, handlers.review_decision),
    McpTool(S.SHOULD_REVIEW,
            "Whether a decision deserves a review (deterministic, no model): architecture, schema, public API, key "
            "dependency, large refactors, security/performance and high risk say yes; formatting, renames, docs "
            "and small local changes say no unless a structural signal overrides. Returns the reasons.",
            S.triage_input_schema, handlers.should_review),
    McpTool(S.RECORD_OUTCOME,
            "Record what became of a logged review (accepted, later rework, useful) in the local telemetry log "
            "(opt-in; no content is stored).",
            S.outcome_input_schema, handlers.record_outcome, read_only=False),
    # The weighted quorum's tools, with the predecessor's names and argument names.
    McpTool("peer_review",
            "Ask the weighted quorum of models: tiers fan out lowest first until the agreeing weight reaches the "
            "threshold; returns the arbiter's consensus, certaintyScore and every source's status. callerAnswer "
            "(yours) is never shown to a peer; it is rated (callerAgreement).",
            S.peer_review_schema, quorum.peer_review, quorum=True),
    McpTool("query_peer", "Ask one source alone (default: the lowest tier's highest-weight source).",
            S.query_peer_schema, quorum.query_peer, quorum=True),
    McpTool("list_peers", "The quorum's sources in configuration order, and whether each one's credential resolves.",
            S.list_peers_schema, quorum.list_peers, quorum=True),
    McpTool("count_tokens",
            "Tokens of a text for a source: the provider's count endpoint for Anthropic sources (method api), "
            "else an estimate (method estimate).",
            S.count_tokens_schema, quorum.count_tokens, quorum=True),
)


def _registry_tool(name: str, description: str, schema: dict[str, Any]) -> McpTool:
    def work(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
        return handlers.call_registry_tool(cfg, name, args)

    return McpTool(name, description, lambda: schema, work)


def mcp_tools() -> list[McpTool]:
    """Every tool in the order a client lists them: review_change, the registry's tools, the rest."""
    return [*_CORE, *(_registry_tool(*t) for t in S.registry_tools()), *_AFTER_REGISTRY]
