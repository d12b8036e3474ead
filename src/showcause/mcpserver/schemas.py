"""The tools' JSON schemas: the registry's own, with where the trees come from; review_change's in and out.

The repository tools take exactly the registry's arguments (`tool_schemas()`, the one registry the
CLI and the models read) plus `repo`, `base` and `head`; nothing here restates a tool's own arguments.
"""

from __future__ import annotations

from typing import Any

from showcause.service.catalog import change_modes, decision_modes, tool_schemas

__all__ = ["RECORD_OUTCOME", "REVIEW_CHANGE", "REVIEW_DECISION", "SHOULD_REVIEW", "SOURCE_FIELDS",
           "count_tokens_schema", "decision_input_schema", "list_peers_schema", "outcome_input_schema",
           "peer_review_schema", "query_peer_schema", "registry_tools", "review_input_schema", "review_output_schema",
           "triage_input_schema"]

REVIEW_CHANGE = "review_change"
REVIEW_DECISION = "review_decision"
SHOULD_REVIEW = "should_review"
RECORD_OUTCOME = "record_outcome"

_NULLABLE_STR: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}

SOURCE_FIELDS: dict[str, dict[str, Any]] = {
    "repo": {"type": "string", "description": "The repository (a path inside one of the server's --root "
                                              "directories; relative paths are read from the first root)."},
    "base": {**_NULLABLE_STR, "description": "Git ref of the base tree; default: the merge-base of HEAD with "
                                             "the default branch (origin/HEAD, main or master), else HEAD."},
    "head": {**_NULLABLE_STR, "description": "Git ref of the head tree; default: the working tree (committed, "
                                             "staged, unstaged and untracked files that are not ignored)."},
}


def _with_source(schema: dict[str, Any]) -> dict[str, Any]:
    props = {**SOURCE_FIELDS, **{k: v for k, v in schema.get("properties", {}).items() if k not in SOURCE_FIELDS}}
    return {**schema, "type": "object", "properties": props, "additionalProperties": False,
            "required": ["repo", *schema.get("required", [])]}


def registry_tools() -> list[tuple[str, str, dict[str, Any]]]:
    """(name, description, input schema) of every registry tool, in registry order."""
    return [(t["name"], t["description"], _with_source(t["input_schema"])) for t in tool_schemas()]


def review_input_schema() -> dict[str, Any]:
    names = [spec.name for spec in change_modes()]
    return _with_source({"properties": {
        "mode": {"anyOf": [{"type": "string", "enum": names}, {"type": "null"}], "default": None,
                 "description": "Review mode; default mechanical, or evidence_gate when the server has a model."},
        "task": {**_NULLABLE_STR, "description": "What the change is for."},
        "plan": {**_NULLABLE_STR, "description": "The author's plan or PR description."},
    }})


_VERDICTS = ["KEEP", "WARNING", "MODIFY", "REPLACE", "INCONCLUSIVE"]
_ARTIFACT = {"type": "object", "required": ["type", "file", "detail", "tool_call"], "properties": {
    "type": {"type": "string"}, "file": {"type": "string"}, "line": {"type": ["integer", "null"]},
    "detail": {"type": "string"}, "tool_call": {"type": "string"}}}


def review_output_schema() -> dict[str, Any]:
    """The stable fields of the review result JSON (docs: DESIGN "Review result"); more fields may appear."""
    claim = {"type": "object", "required": ["claim", "verdict", "model_verdict", "gate"], "properties": {
        "claim": {"type": "string"}, "verdict": {"type": "string"}, "model_verdict": {"type": "string"},
        "evidence_refs": {"type": "array", "items": {"type": "string"}},
        "gate": {"type": "object", "required": ["status", "artifacts"], "properties": {
            "status": {"enum": ["validated", "downgraded", "unconfirmed"]},
            "artifacts": {"type": "array", "items": _ARTIFACT}}}}}
    call = {"type": "object", "required": ["id", "tool", "args", "ok", "artifacts", "ms"], "properties": {
        "id": {"type": "string"}, "tool": {"type": "string"}, "args": {"type": "object"}, "ok": {"type": "boolean"},
        "artifacts": {"type": "array", "items": _ARTIFACT}, "ms": {"type": "integer"}}}
    return {"type": "object", "required": ["verdict", "model_verdict", "summary", "claims", "tool_calls", "meta"],
            "properties": {
                "verdict": {"enum": _VERDICTS}, "model_verdict": {"type": "string"}, "summary": {"type": "string"},
                "claims": {"type": "array", "items": claim}, "tool_calls": {"type": "array", "items": call},
                "meta": {"type": "object", "required": ["mode", "isolation", "review_id"]},
                "error": {"type": "object", "required": ["code", "message"]}}}


def decision_input_schema() -> dict[str, Any]:
    """The decision's own fields (the one model that parses a decision file) and the predecessor's
    `review_mode`."""
    from showcause.core.decision import DecisionInput

    schema = DecisionInput.model_json_schema()
    names = [spec.name for spec in decision_modes()]
    schema["properties"]["review_mode"] = {
        "anyOf": [{"type": "string", "enum": names}, {"type": "null"}], "default": None,
        "description": "blind_first (default): a first phase sees only the problem, never the proposal; "
                       "proposal_first: one pass over the problem and the proposal."}
    return schema


def triage_input_schema() -> dict[str, Any]:
    from showcause.core.triage import TriageInput

    return TriageInput.model_json_schema()


def outcome_input_schema() -> dict[str, Any]:
    flag = {"type": "boolean"}
    return {"type": "object", "additionalProperties": False,
            "required": ["review_id", "accepted_review", "later_rework_required", "review_was_useful"],
            "properties": {
                "review_id": {"type": "string", "description": "meta.review_id of a logged review."},
                "accepted_review": {**flag, "description": "The author followed the review's verdict."},
                "later_rework_required": {**flag, "description": "The change needed rework later."},
                "review_was_useful": {**flag, "description": "The review told the author something useful."}}}


# The quorum's tools (`showcause mcp --quorum FILE`), with the predecessor's argument names.
_TEXT = {"type": "string", "minLength": 1}
_HISTORY = {"type": "array", "description": "Earlier turns, sent to the peers.", "items": {
    "type": "object", "additionalProperties": False, "required": ["role", "content"],
    "properties": {"role": {"enum": ["user", "model"]}, "content": {"type": "string"}}}}
_SOURCE = {"type": "string", "description": "A configured source's name."}


def _quorum_schema(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": required, "properties": props}


def peer_review_schema() -> dict[str, Any]:
    return _quorum_schema(["prompt"], prompt=_TEXT, history=_HISTORY,
                          tier={"type": "integer", "minimum": 1, "description": "The highest tier to reach."},
                          callerAnswer={"type": "string"},
                          callerSource={**_SOURCE, "description": "The configured source you are: skipped."})


def query_peer_schema() -> dict[str, Any]:
    return _quorum_schema(["prompt"], prompt=_TEXT, history=_HISTORY, source=_SOURCE)


def list_peers_schema() -> dict[str, Any]:
    return _quorum_schema([])


def count_tokens_schema() -> dict[str, Any]:
    return _quorum_schema(["text"], text={"type": "string"}, source=_SOURCE)
