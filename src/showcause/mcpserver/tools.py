"""The tool handlers, each through the service façade: a review of a change, a call of a registry tool, a
decision review, the should_review gate and an outcome for the telemetry log.

Handlers are blocking (a review runs tests in the sandbox); the server runs them off the event loop. Every
`repo` is resolved against the roots first, so nothing outside them is read or run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.types import CallToolResult

from showcause import service
from showcause.core.meta import DecisionMeta
from showcause.decision.review import review_decision_fields
from showcause.mcpserver.cap import cap_record, cap_review, cap_text
from showcause.mcpserver.gate import CallGate
from showcause.mcpserver.results import json_result, review_text
from showcause.mcpserver.roots import Roots
from showcause.mcpserver.store import ReviewStore, resource_uri
from showcause.service import ChangeSource, ReviewOptions
from showcause.service import outcomes as outcomes_service
from showcause.service.inputs import default_base

__all__ = ["ServerConfig", "call_registry_tool", "record_outcome", "review_change", "review_decision",
           "should_review"]

_SOURCE_KEYS = ("repo", "base", "head")


@dataclass(frozen=True)
class ServerConfig:
    """What the server was started with: the roots, and the review settings the user (never a repository or
    a client) chose."""

    roots: Roots
    model: str | None = None
    base_url: str | None = None
    config: Path | None = None
    isolation: str | None = None
    python: Path | None = None
    quorum: Any = None           # the loaded quorum (`--quorum FILE`): its four tools are served
    quorum_file: Path | None = None   # that file: `review_change` with mode `quorum` takes its members from it
    store: ReviewStore = field(default_factory=ReviewStore)
    gate: CallGate = field(default_factory=CallGate)   # repository calls at once (each copies a snapshot)


def _source(cfg: ServerConfig, args: dict[str, Any]) -> ChangeSource:
    repo = cfg.roots.resolve(args["repo"])
    base, head = args.get("base"), args.get("head")
    if base is None:
        base = default_base(repo)
    return ChangeSource(repo=repo, base=base, head=head)


def review_change(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    """The review result JSON (capped, the whole of it kept as a resource) and a short text of it."""
    quorum = args.get("mode") == "quorum"   # its members come from the quorum file, not the server's --model
    source = _source(cfg, args)
    with cfg.gate.slot():
        result = service.review_change(source, ReviewOptions(
            mode=args.get("mode"), model=None if quorum else cfg.model, base_url=None if quorum else cfg.base_url,
            config=cfg.config, isolation=cfg.isolation, task=args.get("task"), plan=args.get("plan"),
            python=cfg.python, quorum=cfg.quorum_file if quorum else None))
    doc = json.loads(service.render_result(result, "json"))
    review_id = result.meta.review_id
    cfg.store.put(review_id, doc)
    uri = resource_uri(review_id)
    return json_result(cap_review(doc, uri), cap_text(review_text(doc), where=uri))


def call_registry_tool(cfg: ServerConfig, name: str, args: dict[str, Any]) -> CallToolResult:
    """The record `showcause tools run --json` prints (refused arguments: `ok` false, not a tool error)."""
    own = {k: v for k, v in args.items() if k not in _SOURCE_KEYS}
    source = _source(cfg, args)
    with cfg.gate.slot():
        call = service.run_tool(source, name, own, config=cfg.config, isolation=cfg.isolation)
    return json_result(cap_record(call.to_json()))


def review_decision(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    doc = review_decision_fields(args, model=cfg.model, base_url=cfg.base_url, config=cfg.config)
    return json_result(doc, _decision_text(doc))


def _decision_text(doc: dict[str, Any]) -> str:
    meta = DecisionMeta.from_json(doc.get("meta", {}))
    out = [f"verdict: {doc.get('verdict')} (review {meta.review_id}, mode {meta.mode}, "
           f"confidence {doc.get('confidence')})"]
    warning = meta.blindness.get("warning")
    if warning:
        out.append(f"WARNING: {warning}")
    if doc.get("error"):
        out.append(f"could not be reviewed: {doc['error']['code']}: {doc['error']['message']}")
    if doc.get("recommendation"):
        out.append(str(doc["recommendation"]))
    return "\n".join(out)


def should_review(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    doc = service.should_review(args)
    return json_result(doc, f"should_review: {str(doc['should_review']).lower()}: {doc['summary']}")


def record_outcome(cfg: ServerConfig, args: dict[str, Any]) -> CallToolResult:
    doc = outcomes_service.record_outcome(args["review_id"], args["accepted_review"], args["later_rework_required"],
                                 args["review_was_useful"], config=cfg.config)
    return json_result(doc, f"outcome recorded for review {doc['id']}")
