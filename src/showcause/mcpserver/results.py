"""What a tool call returns over MCP: a structured result with a short text, or a tool error with its code."""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from showcause.core.claims import LISTED_ARTIFACTS
from showcause.core.errors import ShowcauseError
from showcause.core.meta import ReviewMeta

__all__ = ["error_result", "json_result", "review_text"]


def error_result(exc: ShowcauseError) -> CallToolResult:
    """An MCP tool error (isError) whose text is `{"error": {"code", "message"}}`, the code from core.errors."""
    body = {"error": {"code": exc.code, "message": exc.message}}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
                          is_error=True)


def json_result(doc: dict[str, Any], text: str | None = None) -> CallToolResult:
    """`doc` as structured content; the text is `text`, else the document itself (for clients that read only
    text)."""
    shown = text if text is not None else json.dumps(doc, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=shown)], structured_content=doc)


def _artifact(a: dict[str, Any]) -> str:
    where = f"{a.get('file', '')}{':' + str(a['line']) if a.get('line') else ''}"
    return f"{a.get('tool_call', '')} {a.get('type', '')} {where}: {a.get('detail', '')}"


def review_text(doc: dict[str, Any]) -> str:
    """The verdict, each validated claim with its evidence, and what could not be checked — short enough for an
    agent to read before it acts; the structured content has everything."""
    meta = ReviewMeta.from_json(doc.get("meta", {}))
    out = [f"WARNING: {w}" for w in meta.warnings]
    out.append(f"verdict: {doc['verdict']} (review {meta.review_id}, mode {meta.mode}, isolation {meta.isolation})")
    out.append(str(doc.get("summary", "")))
    if doc.get("error"):
        out.append(f"could not be checked: {doc['error']['code']}: {doc['error']['message']}")
    for claim in doc.get("claims", []):
        status = claim.get("gate", {}).get("status")
        out.append(f"- {claim.get('verdict')} ({status}): {claim.get('claim')}")
        if status == "validated":
            arts = claim.get("gate", {}).get("artifacts", [])
            out += [f"    evidence {_artifact(a)}" for a in arts[:LISTED_ARTIFACTS]]
            if len(arts) > LISTED_ARTIFACTS:   # a change that breaks 1,330 tests: the structured content names each
                out.append(f"    and {len(arts) - LISTED_ARTIFACTS} more, each in the structured content")
    failed = [f"{c['id']} {c['tool']}" for c in doc.get("tool_calls", []) if not c.get("ok")]
    if failed:
        out.append("calls that did not run to an outcome: " + ", ".join(failed))
    return "\n".join(out)
