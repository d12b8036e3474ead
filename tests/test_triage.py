"""should_review: every rule of the deterministic gate, the stricter keywords (whole words and real stems,
each reason naming the words that gave it), the decision order, and strict input (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from showcause import service
from showcause.core.errors import InputError


def gate(summary: str = "", decision_type: str = "implementation", risk_level: str = "medium",
         **fields: Any) -> dict[str, Any]:
    return service.should_review({"decision_type": decision_type, "risk_level": risk_level, "summary": summary,
                                  **fields})


@pytest.mark.parametrize(("fields", "reason"), [
    ({"decision_type": "architecture"}, "architecture change"),
    ({"decision_type": "database"}, "database schema change"),
    ({"changes_db_schema": True}, "database schema change"),
    ({"includes_migration": True}, "data/schema migration"),
    ({"decision_type": "api"}, "API change"),
    ({"changes_public_api": True}, "public API change"),
    ({"replaces_key_dependency": True}, "key dependency replacement"),
    ({"decision_type": "security"}, "security decision"),
    ({"security_sensitive": True}, "security decision"),
    ({"decision_type": "performance", "risk_level": "medium"}, "performance decision"),
    ({"performance_critical": True}, "performance decision"),
    ({"irreversible": True}, "hard-to-reverse decision"),
    ({"modules_touched": 3}, "multi-module change"),
    ({"files_changed": 15}, "large change"),
    ({"decision_type": "refactor", "files_changed": 8}, "large refactor"),
    ({"decision_type": "refactor", "modules_touched": 2}, "large refactor"),
    ({"decision_type": "debugging", "competing_hypotheses": 2}, "complex debugging"),
])
def test_each_structural_signal_gives_its_reason(fields: dict[str, Any], reason: str):
    assert gate(**fields) == {"should_review": True, "reasons": [reason], "summary": f"review recommended: {reason}"}


@pytest.mark.parametrize("fields", [
    {"modules_touched": 2}, {"files_changed": 14}, {"decision_type": "refactor", "files_changed": 7,
                                                    "modules_touched": 1},
    {"decision_type": "debugging", "competing_hypotheses": 1}, {"competing_hypotheses": 5},
    {"decision_type": "api", "changes_public_api": False}, {"changes_public_api": False},
])
def test_below_the_thresholds_there_is_no_reason(fields: dict[str, Any]):
    assert gate(**fields) == {"should_review": False, "reasons": [],
                              "summary": "small local change with no expensive-decision signals"}


@pytest.mark.parametrize(("summary", "reason"), [
    ("Add a migration for the orders table", 'database schema change (summary: "migration")'),
    ("We will ALTER TABLE users and drop column legacy_id",
     'database schema change (summary: "ALTER TABLE", "drop column")'),
    ("a schema change in billing", 'database schema change (summary: "schema change")'),
    ("This is a breaking change to the public API", 'public API change (summary: "breaking change", "public API")'),
    ("keep the API contract and the wire format", 'public API change (summary: "API contract", "wire format")'),
    ("deprecate the v1 endpoint", 'public API change (summary: "deprecate")'),
    ("switch the message queue to Kafka", 'key dependency replacement (summary: "switch the message queue")'),
    ("replace SQLAlchemy with another ORM",
     'key dependency replacement (summary: "replace SQLAlchemy with another ORM")'),
    ("add authentication to the admin pages", 'security decision (summary: "authentication")'),
    ("authorize admins only; unauthorized users get 403", 'security decision (summary: "authorize", "unauthorized")'),
    ("move to OAuth2 and rotate the auth secret", 'security decision (summary: "OAuth2", "auth", "secret")'),
    ("check permissions and escape for XSS and CSRF", 'security decision (summary: "permissions", "XSS", "CSRF")'),
    ("prevent SQL injection in search", 'security decision (summary: "injection")'),
    ("encrypt tokens with the crypto module", 'security decision (summary: "encrypt", "crypto")'),
    ("fix a race condition and a deadlock", 'concurrency risk (summary: "race condition", "deadlock")'),
    ("concurrent writers need a distributed lock", 'concurrency risk (summary: "concurrent", "distributed lock")'),
])
def test_summary_keywords_give_a_reason_naming_their_words(summary: str, reason: str):
    result = gate(summary)
    assert result["should_review"] is True and result["reasons"] == [reason]


@pytest.mark.parametrize("summary", [
    "Show the author of each post and the authors page",       # author is not auth
    "authored by the docs team; authoritative source list",
    "wire up dependency injection for the handlers",           # not an injection attack
    "trace the brace matching in the parser",                  # race only as a word
    "secretary contact form", "permissive CSV parsing", "migratory birds dataset page",
    "replace the button colour; the cache of icons stays",     # replace … cache is past the sentence
    "cryptic error message",
])
def test_words_that_only_contain_a_keyword_give_no_reason(summary: str):
    assert gate(summary)["reasons"] == []


def test_the_dependency_keyword_must_follow_within_40_characters():
    assert gate("replace " + "x" * 41 + " library")["reasons"] == []
    assert gate("replace " + "x" * 30 + " library")["reasons"] == [
        f'key dependency replacement (summary: "replace {"x" * 30} library")']


def test_decision_order_trivial_risk_performance_and_nothing():
    assert gate(trivial_kind="rename") == {"should_review": False, "reasons": [],
                                           "summary": "trivial change (rename); review not worth the cost"}
    # A structural signal overrides the trivial kind: renaming a field of the public API.
    assert gate("rename a field of the public API", trivial_kind="rename")["reasons"] == [
        'public API change (summary: "public API")']
    # High risk: the trivial kind does not apply, and the risk is a reason of its own.
    assert gate(trivial_kind="docs", risk_level="high") == {"should_review": True, "reasons": ["high risk"],
                                                            "summary": "review recommended: high risk"}
    assert gate(decision_type="architecture", risk_level="critical")["reasons"] == ["architecture change",
                                                                                   "critical risk"]
    assert gate(decision_type="performance", risk_level="low") == {
        "should_review": False, "reasons": ["performance decision"],
        "summary": "low-risk local performance tweak; review not worth the cost"}
    assert gate(decision_type="performance", risk_level="low", performance_critical=True)["should_review"] is True
    assert gate(decision_type="performance", risk_level="medium")["should_review"] is True
    assert gate(risk_level="low") == {"should_review": False, "reasons": [],
                                      "summary": "small local change with no expensive-decision signals"}


def test_reasons_are_deduplicated_and_fields_and_summary_both_count():
    result = gate("authentication rework", decision_type="security", security_sensitive=True, risk_level="high")
    assert result["reasons"] == ["security decision", 'security decision (summary: "authentication")', "high risk"]


@pytest.mark.parametrize(("fields", "message"), [
    ({"decision_type": "architecture"}, "risk_level: Field required"),
    ({"decision_type": "x", "risk_level": "low"}, "decision_type: Input should be 'architecture'"),
    ({"decision_type": "api", "risk_level": "low", "files": 3}, "files: unknown field"),
    ({"decision_type": "api", "risk_level": "low", "files_changed": "3"}, "files_changed: Input should be a valid "
                                                                          "integer"),
    ({"decision_type": "api", "risk_level": "low", "files_changed": True}, "files_changed: Input should be a valid "
                                                                           "integer"),
    ({"decision_type": "api", "risk_level": "low", "files_changed": -1}, "files_changed: Input should be greater"),
    ({"decision_type": "api", "risk_level": "low", "irreversible": "yes"}, "irreversible: Input should be a valid "
                                                                          "boolean"),
    ({"decision_type": "api", "risk_level": "low", "trivial_kind": "typo"}, "trivial_kind: Input should be"),
    ({"decision_type": "api", "risk_level": "low", "summary": "s" * 2001}, "summary: String should have at most"),
])
def test_bad_input_is_an_input_error(fields: dict[str, Any], message: str):
    with pytest.raises(InputError) as err:
        service.should_review(fields)
    assert err.value.code == "INVALID_INPUT"
    assert err.value.message.startswith(f"invalid should_review input: {message}"), err.value.message
    with pytest.raises(InputError, match="a JSON object of fields"):
        service.should_review(["architecture"])   # type: ignore[arg-type]


def test_the_gate_is_pure_and_cheap_to_import():
    code = ("import sys, json; from showcause.core.triage import should_review; "
            "print(json.dumps(should_review({'decision_type': 'architecture', 'risk_level': 'low'}))); "
            "print(any(m.startswith(('showcause.judges', 'showcause.providers', 'showcause.sandbox')) "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert json.loads(out[0])["reasons"] == ["architecture change"]
    assert out[1] == "False"
