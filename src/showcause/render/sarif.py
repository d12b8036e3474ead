"""SARIF 2.1.0 for GitHub code scanning: one rule per artifact kind, exact locations."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from showcause.core.escape import sarif_text
from showcause.core.result import ReviewResult
from showcause.core.version import __version__
from showcause.render.common import claim_location, dropped_note, notes, one_line

__all__ = ["render_sarif"]

_RULES = {
    "test_regression": "A test the change made fail (it passes on the base tree).",
    "new_type_error": "A type error the change introduced (absent on the base tree).",
    "dangling_reference": "A use of a name the change retired, left outside the change.",
    "unvalidated": "A concern without a qualifying artifact (never blocks).",
}
_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _invocation(result: ReviewResult) -> dict[str, Any]:
    """Whether the review ran, and the run-level warnings (an unsandboxed run) where SARIF viewers show them."""
    said = [{"level": "warning", "message": {"text": sarif_text(w)}} for w in result.meta.warnings]
    said += [{"level": "note", "message": {"text": sarif_text(n)}}
             for n in [*notes(result), *filter(None, [dropped_note(result)])]]
    if result.error:
        text = sarif_text(f"{result.error['code']}: {result.error['message']}")
        said.append({"level": "error", "message": {"text": text},
                     "descriptor": {"id": result.error["code"]}})
    return {"executionSuccessful": result.verdict != "INCONCLUSIVE", "toolExecutionNotifications": said}


def render_sarif(result: ReviewResult) -> str:
    rules = [{"id": rid, "name": rid, "shortDescription": {"text": text}, "fullDescription": {"text": text},
              "defaultConfiguration": {"level": "warning" if rid == "unvalidated" else "error"}}
             for rid, text in _RULES.items()]
    results = []
    for c in result.claims:
        where = claim_location(c)
        if where is None:
            continue  # code scanning needs a location; the claim still appears in every other format
        rule = c.artifacts[0].type if c.status == "validated" and c.artifacts else "unvalidated"
        file, line = where
        text = sarif_text(one_line(c.claim.claim, 1000))
        if c.status != "validated":
            text += f" (not blocking: {c.status})"
        fingerprint = hashlib.sha256(f"{rule}|{file}|{c.claim.claim}".encode()).hexdigest()[:32]
        results.append({
            "ruleId": rule, "ruleIndex": list(_RULES).index(rule),
            "level": "error" if c.verdict in ("MODIFY", "REPLACE") else "warning",
            "message": {"text": text},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"},
                                                "region": {"startLine": max(1, line or 1)}}}],
            "partialFingerprints": {"showcause/v1": fingerprint},
            "properties": {"verdict": c.verdict, "model_verdict": c.claim.verdict, "gate": c.status,
                           "evidence": [f"{a.tool_call}:{a.type}" for a in c.artifacts]},
        })
    doc = {"$schema": _SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "showcause", "version": __version__, "semanticVersion": __version__,
                            "informationUri": "https://pypi.org/project/showcause/", "rules": rules}},
        "results": results,
        "invocations": [_invocation(result)],
        "properties": {"verdict": result.verdict, "mode": result.meta.mode,
                       "isolation": result.meta.isolation, "warnings": result.meta.warnings,
                       "notes": notes(result)},
    }]}
    return json.dumps(doc, indent=2) + "\n"
