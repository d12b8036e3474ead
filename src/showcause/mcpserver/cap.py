"""Keeping a tool result under what agents' clients accept (they reject results of about 25,000 tokens).

The bound is on characters, counted at 3 per token (a conservative rate for code and JSON): 60,000
characters of text and structured content together stay under 20,000 tokens. A longer review keeps its
verdict, summary and every validated claim whole; what gives way, in this order, is the output text of tool
calls, then the evidence text of claims the gate did not validate, each cut with a note. The full result
stays readable as the resource the note names.
"""

from __future__ import annotations

import copy
import json
from typing import Any

__all__ = ["MAX_RESULT_CHARS", "cap_record", "cap_review", "cap_text", "size"]

MAX_RESULT_CHARS = 60_000
_TEXT_SHARE = 8_000          # the short text beside the structured result
_STEPS = (4_000, 1_000, 200, 0)


def size(doc: dict[str, Any]) -> int:
    return len(json.dumps(doc, ensure_ascii=False))


def cap_text(text: str, limit: int = _TEXT_SHARE, where: str | None = None) -> str:
    if len(text) <= limit:
        return text
    note = f"\n[… {len(text) - limit} more characters" + (f": the whole result is {where}]" if where else "]")
    return text[:limit] + note


def _cut(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[:limit] + f" [… {len(value) - limit} characters cut]"


def _shrink_calls(doc: dict[str, Any], limit: int) -> None:
    for call in doc.get("tool_calls", []):
        if isinstance(call.get("output"), str):
            call["output"] = _cut(call["output"], limit)
        if isinstance(call.get("results"), list) and limit == 0:
            call["results"] = []


def _shrink_unvalidated(doc: dict[str, Any], limit: int) -> None:
    for claim in doc.get("claims", []):
        if claim.get("gate", {}).get("status") == "validated":
            continue   # the reason for a block is never cut
        for key in ("claim", "explanation", "suggestion"):
            if isinstance(claim.get(key), str):
                claim[key] = _cut(claim[key], max(limit, 200))


def cap_review(doc: dict[str, Any], resource: str, budget: int = MAX_RESULT_CHARS - _TEXT_SHARE) -> dict[str, Any]:
    """`doc` itself when it fits in `budget` characters, else a copy cut as the module says, with
    `meta.truncated` naming what was cut and where the whole result is."""
    if size(doc) <= budget:
        return doc
    out = copy.deepcopy(doc)
    cut: list[str] = []
    for shrink, what in ((_shrink_calls, "tool call output"), (_shrink_unvalidated, "unvalidated claims")):
        for limit in _STEPS:
            shrink(out, limit)
            if what not in cut:
                cut.append(what)
            if size(out) <= budget:
                break
        if size(out) <= budget:
            break
    if size(out) > budget:   # many claims: keep the validated ones, count the rest
        kept = [c for c in out.get("claims", []) if c.get("gate", {}).get("status") == "validated"]
        dropped = len(out.get("claims", [])) - len(kept)
        out["claims"], out["tool_calls"] = kept, []
        cut.append(f"{dropped} claims that were not validated, and the tool call list")
    out.setdefault("meta", {})["truncated"] = {
        "cut": cut, "resource": resource,
        "note": f"this result was cut to stay under {MAX_RESULT_CHARS} characters; read {resource} for all of it"}
    return out


def _cut_strings(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return _cut(value, limit)
    if isinstance(value, list):
        return [_cut_strings(v, limit) for v in value]
    if isinstance(value, dict):
        return {k: _cut_strings(v, limit) for k, v in value.items()}
    return value


def cap_record(doc: dict[str, Any], budget: int = MAX_RESULT_CHARS // 2) -> dict[str, Any]:
    """A registry tool's record under `budget` characters (it is sent twice: as text and as structure): the
    arguments it echoes are cut first (a 200 kB pattern need not come back), then the output text."""
    if size(doc) <= budget:
        return doc
    out = {**doc, "args": _cut_strings(doc.get("args", {}), 200)}
    if size(out) > budget and isinstance(out.get("output"), str):
        over = size(out) - budget
        out["output"] = _cut(out["output"], max(0, len(out["output"]) - over - 100))
    return out
