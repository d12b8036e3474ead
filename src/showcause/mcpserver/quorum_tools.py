"""The weighted quorum's tools, with the predecessor's names and argument names, for `showcause mcp --quorum`:
`peer_review`, `query_peer`, `list_peers` and `count_tokens`, each through the service façade.

The quorum configuration is the user's (loaded once when the server starts, so a bad file fails the command
with exit 2); clients choose only the prompt, the history, the tier, their own answer and the source they are.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from showcause import service
from showcause.mcpserver.results import json_result

__all__ = ["QUORUM_TOOLS"]

_TEXT = {"type": "string", "minLength": 1}
_HISTORY = {"type": "array", "description": "Earlier turns, sent to the peers.", "items": {
    "type": "object", "additionalProperties": False, "required": ["role", "content"],
    "properties": {"role": {"enum": ["user", "model"]}, "content": {"type": "string"}}}}
_SOURCE = {"type": "string", "description": "A configured source's name."}


def _schema(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": required, "properties": props}


def peer_review(quorum: Any, args: dict[str, Any]) -> CallToolResult:
    result = service.ask_quorum(quorum, args["prompt"], history=service.parse_history(args.get("history")),
                                tier=args.get("tier"), caller_answer=args.get("callerAnswer"),
                                caller_source=args.get("callerSource"))
    doc = result.to_dict()
    q = doc.get("quorum", {})
    summary = (f"quorum {'reached' if q.get('achieved') else 'not reached'} at tier {q.get('tier')} "
               f"(certaintyScore {doc.get('certaintyScore')})")
    if not result.answered:   # every source failed: an error, with each source's status beside it
        failed = {"error": {"code": "PROVIDER_ERROR", "message": "no source answered: " + ", ".join(
            f"{s['name']} {s['status']}" for s in q.get("sources", []))}}
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(failed))], structured_content=doc,
                              is_error=True)
    return json_result(doc, f"{doc.get('response')}\n\n{summary}")


def query_peer(quorum: Any, args: dict[str, Any]) -> CallToolResult:
    doc = service.query_peer(quorum, args["prompt"], history=service.parse_history(args.get("history")),
                             source=args.get("source"))
    return json_result(doc, str(doc.get("response")))


def list_peers(quorum: Any, args: dict[str, Any]) -> CallToolResult:
    return json_result(service.list_peers(quorum))


def count_tokens(quorum: Any, args: dict[str, Any]) -> CallToolResult:
    return json_result(service.count_tokens(quorum, args["text"], source=args.get("source")))


# name -> (description, input schema, handler)
QUORUM_TOOLS = {
    "peer_review": ("Ask the weighted quorum of models: tiers fan out lowest first until the agreeing weight "
                    "reaches the threshold; returns the arbiter's consensus, certaintyScore and every source's "
                    "status. callerAnswer (yours) is never shown to a peer; it is rated (callerAgreement).",
                    _schema(["prompt"], prompt=_TEXT, history=_HISTORY,
                            tier={"type": "integer", "minimum": 1, "description": "The highest tier to reach."},
                            callerAnswer={"type": "string"},
                            callerSource={**_SOURCE, "description": "The configured source you are: skipped."}),
                    peer_review),
    "query_peer": ("Ask one source alone (default: the lowest tier's highest-weight source).",
                   _schema(["prompt"], prompt=_TEXT, history=_HISTORY, source=_SOURCE), query_peer),
    "list_peers": ("The quorum's sources in configuration order, and whether each one's credential resolves.",
                   _schema([]), list_peers),
    "count_tokens": ("Tokens of a text for a source: the provider's count endpoint for Anthropic sources "
                     "(method api), else an estimate (method estimate).",
                     _schema(["text"], text={"type": "string"}, source=_SOURCE), count_tokens),
}
