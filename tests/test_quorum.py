"""The weighted quorum over loopback peers in both wire formats: the predecessor's five walkthrough scenarios
with its exact numbers, and the arbiter failing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quorum_servers import (
    arbiter_posts,
    peer_posts,
    user_text,
)
from quorum_stack import CONSENSUS, RATINGS, Stack
from showcause.service.quorum import ask_quorum, load_quorum


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUORUM_TEST_KEY", "sk-test-quorum-0001")
    monkeypatch.setenv("GEMINI_TEST_KEY", "sk-test-gemini-0002")
    for var in ("SHOWCAUSE_SKIP_LOCAL", "PEER_REVIEW_SKIP_LOCAL", "PEER_REVIEW_DEADLINE_MS", "PEER_TIMEOUT_MS"):
        monkeypatch.delenv(var, raising=False)


def _stack(ratings: dict[str, float], caller: float | None = None) -> Iterator[Stack]:
    stack = Stack(ratings, caller)
    try:
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def stack(keys: None) -> Iterator[Stack]:
    yield from _stack(RATINGS)


def _rows(result: dict[str, Any]) -> list[tuple[str, str, int, float | None]]:
    return [(s["name"], s["status"], s["weight"], s["agreement"]) for s in result["quorum"]["sources"]]


def test_an_easy_query_reaches_quorum_at_tier_2_and_never_contacts_tier_3(stack: Stack, tmp_path: Path):
    result = ask_quorum(load_quorum(stack.config(tmp_path)), "What does HTTP status 431 mean?")
    data = result.to_dict()
    assert data["response"] == CONSENSUS
    assert data["certaintyScore"] == 0.98
    assert {k: v for k, v in data["quorum"].items() if k != "sources"} == {
        "achieved": True, "tier": 2, "requiredWeight": 4, "agreeingWeight": 4}
    assert _rows(data) == [("gemini-flash", "ok", 1, 1.0), ("gpt-mini", "ok", 1, 1.0), ("gemini-pro", "ok", 2, 0.95)]
    assert "callerAgreement" not in data
    assert stack.claude.posts() == []
    assert len(arbiter_posts(stack.mini)) == 2   # once after tier 1, once after tier 2, each over all answers
    peers = 10 + 5 + 10 + 5 + 20 + 9
    arbiter = 2 * (30 + 20)
    assert data["tokenUsage"] == {"prompt": 10 + 10 + 20 + 60, "completion": 5 + 5 + 9 + 40,
                                  "total": peers + arbiter}


def test_tier_1_caps_escalation_and_sets_the_required_weight(keys: None, tmp_path: Path):
    for stack in _stack({"gemini-flash": 1.0, "gpt-mini": 0.9}):
        result = ask_quorum(load_quorum(stack.config(tmp_path)), "Is 'reciept' spelled right?",
                                    tier=1).to_dict()
        assert result["certaintyScore"] == 0.95
        assert result["quorum"]["achieved"] is True
        assert (result["quorum"]["tier"], result["quorum"]["requiredWeight"], result["quorum"]["agreeingWeight"]) \
            == (1, 2, 2)
        assert _rows(result) == [("gemini-flash", "ok", 1, 1.0), ("gpt-mini", "ok", 1, 0.9)]
        assert stack.pro.posts() == [] and stack.claude.posts() == []


def test_an_outlier_is_itemized_but_excluded_and_forces_the_full_stack(keys: None, tmp_path: Path):
    ratings = {"gemini-flash": 0.2, "gpt-mini": 0.95, "gemini-pro": 0.9, "claude": 0.85}
    for stack in _stack(ratings):
        result = ask_quorum(load_quorum(stack.config(tmp_path)), "structuredClone or JSON?")
        data = result.to_dict()
        assert data["certaintyScore"] == 0.9
        assert (data["quorum"]["achieved"], data["quorum"]["tier"], data["quorum"]["agreeingWeight"]) == (True, 3, 5)
        assert _rows(data) == [("gemini-flash", "ok", 1, 0.2), ("gpt-mini", "ok", 1, 0.95),
                               ("gemini-pro", "ok", 2, 0.9), ("claude", "ok", 2, 0.85)]
        assert result.arbiter_calls == 3
        last = user_text(arbiter_posts(stack.mini)[-1].body)
        assert all(f'source="{name}"' in last for name in ratings)   # re-rated: every answer so far


def test_a_missing_key_makes_sources_unavailable_and_the_quorum_is_not_achieved(
        keys: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("GEMINI_TEST_KEY")
    for stack in _stack({**RATINGS, "claude": 0.95}):
        data = ask_quorum(load_quorum(stack.config(tmp_path)), "HTTP 431?").to_dict()
        assert data["response"] == CONSENSUS
        assert data["certaintyScore"] == 0.73   # min(1, 3/4) * mean(1.0, 0.95)
        assert {k: v for k, v in data["quorum"].items() if k != "sources"} == {
            "achieved": False, "tier": 3, "requiredWeight": 4, "agreeingWeight": 3}
        assert _rows(data) == [("gemini-flash", "unavailable", 1, None), ("gpt-mini", "ok", 1, 1.0),
                               ("gemini-pro", "unavailable", 2, None), ("claude", "ok", 2, 0.95)]
        assert data["quorum"]["sources"][0]["error"] == "CONFIG_ERROR"
        assert stack.flash.posts() == [] and stack.pro.posts() == []


def test_the_callers_answer_is_rated_but_never_shown_to_a_peer(keys: None, tmp_path: Path):
    caller = "Yes, sort() orders numbers ascending by default."
    for stack in _stack(RATINGS, caller=0.1):
        result = ask_quorum(load_quorum(stack.config(tmp_path)),
                                    "Does [10, 9, 100].sort() return [9, 10, 100]?", caller_answer=caller)
        data = result.to_dict()
        assert data["callerAgreement"] == 0.1
        assert data["certaintyScore"] == 0.98
        assert (data["quorum"]["achieved"], data["quorum"]["tier"], data["quorum"]["agreeingWeight"]) == (True, 2, 4)
        assert [s["name"] for s in data["quorum"]["sources"]] == ["gemini-flash", "gpt-mini", "gemini-pro"]
        for server in (stack.flash, stack.mini, stack.pro):
            assert peer_posts(server) and all(caller not in r.raw.decode() for r in peer_posts(server))
        arbiter_prompt = user_text(arbiter_posts(stack.mini)[-1].body)
        assert arbiter_prompt.rstrip().endswith("<<<END CALLER DOCUMENT>>>") and caller in arbiter_prompt


def test_an_arbiter_that_never_answers_the_contract_falls_back_to_the_heaviest_answer(keys: None, tmp_path: Path):
    for stack in _stack(RATINGS):
        stack.mini.arbiter = lambda _text: "I think they mostly agree."
        result = ask_quorum(load_quorum(stack.config(tmp_path)), "HTTP 431?")
        data = result.to_dict()
        assert data["response"] == "The server refuses oversized headers (431)."   # gemini-pro, weight 2 first
        assert data["certaintyScore"] == 0
        assert data["quorum"]["arbiterFailed"] is True
        assert data["quorum"]["achieved"] is False and data["quorum"]["tier"] == 3
        assert result.arbiter_calls == 6   # three evaluations, each the reply and one repair
        repair = user_text(arbiter_posts(stack.mini)[1].body)
        assert "previous reply could not be used" in repair


def test_out_of_range_and_unknown_ratings_leave_those_sources_unrated(keys: None, tmp_path: Path):
    for stack in _stack(RATINGS):
        stack.mini.arbiter = lambda _text: json.dumps(
            {"consensus": "c", "ratings": {"gemini-flash": 1.2, "gpt-mini": 1, "nobody": 1}})
        data = ask_quorum(load_quorum(stack.config(tmp_path)), "q", tier=1).to_dict()
        assert _rows(data) == [("gemini-flash", "ok", 1, None), ("gpt-mini", "ok", 1, 1.0)]
        assert data["quorum"]["agreeingWeight"] == 1 and data["certaintyScore"] == 0.5
        assert "arbiterFailed" not in data["quorum"]


def test_the_certainty_score():
    from showcause.quorum import certainty

    assert certainty(4, 4, [0.9, 0.8]) == 0.85
    assert certainty(2, 4, [0.9]) == 0.45
    assert certainty(6, 4, [0.9, 0.9]) == 0.9   # the weight ratio is capped at 1
    assert certainty(0, 4, []) == 0


def test_the_arbiter_reply_is_found_in_what_models_really_send():
    from showcause.core.errors import MalformedAnswer
    from showcause.quorum import parse_reply

    names = ["a", "b"]
    fenced = 'Here it is:\n```json\n{"consensus": "x {not a brace}", "ratings": {"a": 1, "b": 0.5}}\n```'
    assert parse_reply(fenced, names, with_caller=False).ratings == {"a": 1.0, "b": 0.5}
    decoy = '<think>{"consensus": "draft", "ratings": {"a": 0}}</think>{"consensus": "final", "ratings": {"a": 0.9}}'
    assert parse_reply(decoy, names, with_caller=False).consensus == "final"
    listed = '{"consensus": "y", "ratings": [{"name": "a", "agreement": 0.8}, {"name": "caller", "agreement": 0.3}]}'
    parsed = parse_reply(listed, names, with_caller=True)
    assert (parsed.ratings, parsed.caller) == ({"a": 0.8}, 0.3)
    assert parse_reply(listed, names, with_caller=False).caller is None
    for bad in ("no json", '{"consensus": "", "ratings": {"a": 1}}', '{"consensus": "z", "ratings": {"a": "1"}}'):
        with pytest.raises(MalformedAnswer):
            parse_reply(bad, names, with_caller=False)
