"""`should_review`: the deterministic gate that says whether a decision is worth a review (no model).

The rules are the predecessor's (structural signals from the caller's fields, keywords of the summary, then
the decision order below), with stricter keywords: each one matches whole words or real stems only
(`auth`, `authentication`, `authorize`, never `author`; `injection`, never `dependency injection`), and a
reason the summary gave names the words that gave it. The result is advisory: nothing here is verified.

Decision order: a trivial kind with no reason and risk below high is not worth a review; high or critical
risk is a reason of its own; a lone low-risk performance tweak is not worth one; no reason, no review.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from showcause.core.decision import DecisionType, RiskLevel, explain
from showcause.core.errors import InputError

__all__ = ["TRIVIAL_KINDS", "TriageInput", "should_review", "triage"]

TrivialKind = Literal["formatting", "rename", "simple_ui", "obvious_bugfix", "docs", "small_local_change"]
TRIVIAL_KINDS: tuple[str, ...] = ("formatting", "rename", "simple_ui", "obvious_bugfix", "docs",
                                  "small_local_change")
_COUNT = Field(default=None, ge=0, le=1_000_000)


class TriageInput(BaseModel):
    """What the caller says about a decision: its type and risk, a short summary, and structural signals."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    decision_type: DecisionType
    risk_level: RiskLevel
    summary: str = Field(default="", max_length=2_000)
    files_changed: int | None = _COUNT
    modules_touched: int | None = _COUNT
    changes_public_api: bool | None = None      # None: not said (an `api` decision then counts as an API change)
    changes_db_schema: bool = False
    includes_migration: bool = False
    replaces_key_dependency: bool = False
    security_sensitive: bool = False
    performance_critical: bool = False
    irreversible: bool = False
    competing_hypotheses: int | None = _COUNT
    trivial_kind: TrivialKind | None = None


def _words(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(patterns), re.IGNORECASE)


# reason -> the whole words and stems of the summary that give it (our own patterns on a capped text).
_KEYWORDS: dict[str, re.Pattern[str]] = {
    "database schema change": _words(r"\bmigrat(?:e|es|ed|ing|ion|ions)\b", r"\balter\s+tables?\b",
                                     r"\bdrop\s+(?:columns?|tables?)\b", r"\bschema\s+change[sd]?\b"),
    "public API change": _words(r"\bbreaking\s+changes?\b", r"\bpublic\s+apis?\b", r"\bapi\s+contracts?\b",
                                r"\bwire\s+formats?\b", r"\bdeprecat(?:e|es|ed|ing|ion|ions)\b"),
    "key dependency replacement": _words(
        r"\b(?:replac(?:e|es|ed|ing)|swap(?:s|ped|ping)?|switch(?:es|ed|ing)?)\b[^.;!?\n]{0,40}?"
        r"\b(?:orms?|frameworks?|databases?|queues?|brokers?|caches?|librar(?:y|ies)|sdks?)\b"),
    "security decision": _words(
        r"\b(?:un|re|o)?auth(?:n|z|enticat(?:e|es|ed|ing|ion|ions|or|ors)|ori[sz](?:e|es|ed|ing|ation|ations))?\b",
        r"\boauth2\b", r"\bpermissions?\b", r"\b(?:en|de)?crypt(?:o|ography|ographic|ed|ion|ing|s)?\b",
        r"\bsecrets?\b", r"\bxss\b", r"\bcsrf\b", r"(?<!dependency\s)\binjections?\b"),
    "concurrency risk": _words(r"\brace\s+conditions?\b", r"\braces?\b", r"\bdeadlock(?:s|ed|ing)?\b",
                               r"\bconcurren(?:t|cy|tly)\b", r"\bdistributed\s+locks?\b"),
}


def _summary_reasons(summary: str) -> list[str]:
    out = []
    for reason, pattern in _KEYWORDS.items():
        found = dict.fromkeys(" ".join(m.group(0).split()) for m in pattern.finditer(summary))
        if found:
            words = ", ".join(f'"{w}"' for w in list(found)[:3])
            out.append(f"{reason} (summary: {words})")
    return out


def _field_reasons(t: TriageInput) -> list[str]:
    files, modules, hypotheses = t.files_changed or 0, t.modules_touched or 0, t.competing_hypotheses or 0
    rules = [
        (t.decision_type == "architecture", "architecture change"),
        (t.decision_type == "database" or t.changes_db_schema, "database schema change"),
        (t.includes_migration, "data/schema migration"),
        (t.decision_type == "api" and t.changes_public_api is not False, "API change"),
        (t.decision_type != "api" and bool(t.changes_public_api), "public API change"),
        (t.replaces_key_dependency, "key dependency replacement"),
        (t.decision_type == "security" or t.security_sensitive, "security decision"),
        (t.decision_type == "performance" or t.performance_critical, "performance decision"),
        (t.irreversible, "hard-to-reverse decision"),
        (modules >= 3, "multi-module change"),
        (files >= 15, "large change"),
        (t.decision_type == "refactor" and (files >= 8 or modules >= 2), "large refactor"),
        (t.decision_type == "debugging" and hypotheses >= 2, "complex debugging"),
    ]
    return [reason for hit, reason in rules if hit]


def triage(t: TriageInput) -> dict[str, Any]:
    """{"should_review": bool, "reasons": [...], "summary": why, in one line}."""
    reasons = list(dict.fromkeys([*_field_reasons(t), *_summary_reasons(t.summary)]))
    high = t.risk_level in ("high", "critical")
    if t.trivial_kind is not None and not reasons and not high:
        return _answer(False, [], f"trivial change ({t.trivial_kind}); review not worth the cost")
    if high:
        reasons.append(f"{t.risk_level} risk")
    if reasons == ["performance decision"] and t.risk_level == "low" and not t.performance_critical:
        return _answer(False, reasons, "low-risk local performance tweak; review not worth the cost")
    if not reasons:
        return _answer(False, [], "small local change with no expensive-decision signals")
    return _answer(True, reasons, "review recommended: " + "; ".join(reasons))


def _answer(review: bool, reasons: list[str], summary: str) -> dict[str, Any]:
    return {"should_review": review, "reasons": reasons, "summary": summary}


def should_review(fields: Any) -> dict[str, Any]:
    """The gate on a JSON object of fields; unknown fields, wrong types and bad values are an InputError."""
    if not isinstance(fields, dict):
        raise InputError("should_review takes a JSON object of fields")
    try:
        t = TriageInput.model_validate(fields)
    except ValidationError as exc:
        raise InputError(f"invalid should_review input: {explain(exc)}") from None
    return triage(t)
