"""Parse a judge's final answer as models really send it.

Tolerated: `<think>` blocks, Markdown fences, prose around the JSON, a single flattened claim, key and
value case variations, `evidence_refs` as one string, claims that say KEEP (dropped). Anything else is
a `MalformedAnswer` with a message fit to send back to the model for its one repair attempt.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from showcause.errors import ShowcauseError
from showcause.review.claims import MAX_CLAIMS, Claim, FinalAnswer

__all__ = ["MalformedAnswer", "parse_answer", "strip_reasoning"]

_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_ENUMS = {"severity": str.lower, "result": str.lower, "verdict": str.upper}
_ALIASES = {"evidence": "evidence_refs", "refs": "evidence_refs", "evidencerefs": "evidence_refs",
            "suggested_fix": "fix", "decision": "verdict"}


class MalformedAnswer(ShowcauseError):
    code = "MALFORMED_RESPONSE"


def strip_reasoning(text: str) -> str:
    return _THINK.sub("", text or "").strip()


def _first_object(text: str) -> dict[str, Any]:
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for chunk in candidates:
        for start in (i for i, c in enumerate(chunk) if c == "{"):
            try:
                obj, _end = decoder.raw_decode(chunk[start:])
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    raise MalformedAnswer("the answer holds no JSON object; reply with only the JSON final answer")


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
    obj = _norm_keys(_first_object(strip_reasoning(text)))
    if "claims" not in obj and "claim" in obj:       # a single claim sent flat
        obj = {"summary": obj.get("summary", ""), "claims": [obj]}
    raw_claims = obj.get("claims") or []
    if isinstance(raw_claims, dict):
        raw_claims = [raw_claims]
    if not isinstance(raw_claims, list):
        raise MalformedAnswer("`claims` must be a list")
    claims = [c for c in (_norm_claim(r) for r in raw_claims) if c is not None]
    try:
        parsed = [Claim.model_validate(c) for c in claims[:MAX_CLAIMS]]
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise MalformedAnswer(f"invalid claim field {where}: {err['msg']}") from exc
    summary = obj.get("summary")
    return FinalAnswer(summary=summary if isinstance(summary, str) else "", claims=parsed)
