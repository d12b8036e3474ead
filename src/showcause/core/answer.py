"""Parse a judge's final answer as models really send it.

Tolerated: `<think>` blocks, Markdown fences, prose around the JSON, a single flattened claim, key and
value case variations, `evidence_refs` as one string, claims that say KEEP (dropped). Up to
MAX_PARSED_CLAIMS claims are read (the review keeps MAX_CLAIMS of them after the gate); the rest are
counted in `claims_dropped`. Anything else is a `MalformedAnswer` with a message fit to send back to the
model for its one repair attempt.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from showcause.core import jsonsafe
from showcause.core.claims import MAX_PARSED_CLAIMS, Claim, FinalAnswer
from showcause.core.errors import MalformedAnswer

__all__ = ["last_json_object", "parse_answer", "strip_reasoning"]

_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
_FENCE = re.compile(r"```[A-Za-z]*\s*\n?(.*?)```", re.S)
_ANSWER_KEYS = frozenset({"claims", "claim", "summary"})
_ENUMS = {"severity": str.lower, "result": str.lower, "verdict": str.upper}
_ALIASES = {"evidence": "evidence_refs", "refs": "evidence_refs", "evidencerefs": "evidence_refs",
            "suggested_fix": "fix", "decision": "verdict"}


def strip_reasoning(text: str) -> str:
    return _THINK.sub("", text or "").strip()


def _decode_at(decoder: json.JSONDecoder, chunk: str, pos: int) -> tuple[Any, int] | None:
    try:
        return decoder.raw_decode(chunk, pos)
    except json.JSONDecodeError:
        return None


def _top_objects(chunk: str) -> list[dict[str, Any]]:
    """The JSON objects in `chunk` that are not nested in another one, in order.

    Each candidate is measured before it is decoded: one nested deeper than the cap makes the whole
    answer malformed (the decoder would recurse once per level)."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    pos = chunk.find("{")
    while pos != -1:
        try:
            closes = jsonsafe.extent(chunk, pos)
        except jsonsafe.ParseLimitError as exc:
            raise MalformedAnswer(f"the answer holds JSON {exc.msg}") from None
        # One that never closes cannot be an object: not worth decoding.
        decoded = _decode_at(decoder, chunk, pos) if closes is not None else None
        if decoded is None:
            pos = chunk.find("{", pos + 1)
            continue
        obj, end = decoded
        if isinstance(obj, dict):
            found.append(obj)
        pos = chunk.find("{", end)
    return found


def _keys(obj: dict[str, Any]) -> set[str]:
    return {re.sub(r"[\s\-]+", "_", str(k).strip().lower()) for k in obj}


def last_json_object(text: str, shape: frozenset[str], *, what: str = "JSON final answer") -> dict[str, Any]:
    """The LAST object with any key of `shape`, fenced ones first; else the last object at all.

    The last, because a model that quotes an answer it read in a repository file (an injection) before
    giving its own must be judged on its own."""
    try:
        jsonsafe.check_size(text, jsonsafe.MAX_TEXT_BYTES)
    except jsonsafe.ParseLimitError as exc:
        raise MalformedAnswer(f"the answer is {exc.msg}; reply with only the {what}") from None
    fenced = [obj for m in _FENCE.finditer(text) for obj in _top_objects(m.group(1))]
    loose = _top_objects(text)
    for objects in (fenced, loose):
        shaped = [obj for obj in objects if _keys(obj) & shape]
        if shaped:
            return shaped[-1]
    if fenced or loose:
        return (fenced or loose)[-1]
    raise MalformedAnswer(f"the answer holds no JSON object; reply with only the {what}")


def _norm_keys(obj: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in obj.items():
        k = str(key).strip().lower().replace("-", "_").replace(" ", "_")
        out[_ALIASES.get(k.replace("_", ""), _ALIASES.get(k, k))] = value
    return out


def _norm_claim(raw: Any) -> dict[str, Any] | None:
    if isinstance(raw, str):
        raw = {"claim": raw}
    if not isinstance(raw, dict):
        raise MalformedAnswer("each claim must be an object with at least a `claim` field")
    claim = _norm_keys(raw)
    for key, fix in _ENUMS.items():
        if isinstance(claim.get(key), str):
            claim[key] = fix(claim[key].strip())
    if claim.get("verdict") == "KEEP":
        return None
    refs = claim.get("evidence_refs")
    if isinstance(refs, str):
        claim["evidence_refs"] = [r for r in re.split(r"[,\s]+", refs) if r]
    elif isinstance(refs, list):
        claim["evidence_refs"] = [str(r) for r in refs if isinstance(r, str | int)]
    return claim


def parse_answer(text: str) -> FinalAnswer:
    obj = _norm_keys(last_json_object(strip_reasoning(text), _ANSWER_KEYS))
    if "claims" not in obj and "claim" in obj:       # a single claim sent flat
        obj = {"summary": obj.get("summary", ""), "claims": [obj]}
    raw_claims = obj.get("claims") or []
    if isinstance(raw_claims, dict):
        raw_claims = [raw_claims]
    if not isinstance(raw_claims, list):
        raise MalformedAnswer("`claims` must be a list")
    claims = [c for c in (_norm_claim(r) for r in raw_claims) if c is not None]
    try:
        parsed = [Claim.model_validate(c) for c in claims[:MAX_PARSED_CLAIMS]]
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise MalformedAnswer(f"invalid claim field {where}: {err['msg']}") from exc
    summary = obj.get("summary")
    return FinalAnswer(summary=summary if isinstance(summary, str) else "", claims=parsed,
                       claims_dropped=max(0, len(claims) - MAX_PARSED_CLAIMS))
