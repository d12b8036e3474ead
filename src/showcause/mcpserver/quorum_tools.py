"""The weighted quorum's tools, with the predecessor's names and argument names, for `showcause mcp --quorum`:
`peer_review`, `query_peer`, `list_peers` and `count_tokens`, each through the service façade.

The quorum configuration is the user's (loaded once when the server starts, so a bad file fails the command
with exit 2); clients choose only the prompt, the history, the tier, their own answer and the source they are.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from showcause.mcpserver.results import json_result
from showcause.mcpserver.tools import ServerConfig
from showcause.service import quorum as quorum_service
from showcause.service.quorum import ask_quorum, parse_history

__all__ = ["count_tokens", "list_peers", "peer_review", "query_peer"]

def peer_review(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    quorum = cfg.quorum
    result = ask_quorum(quorum, args["prompt"], history=parse_history(args.get("history")),
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


def query_peer(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    quorum = cfg.quorum
    doc = quorum_service.query_peer(quorum, args["prompt"], history=parse_history(args.get("history")),
                             source=args.get("source"))
    return json_result(doc, str(doc.get("response")))


def list_peers(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    quorum = cfg.quorum
    return json_result(quorum_service.list_peers(quorum))


def count_tokens(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    quorum = cfg.quorum
    return json_result(quorum_service.count_tokens(quorum, args["text"], source=args.get("source")))
