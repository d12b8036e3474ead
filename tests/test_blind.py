"""blind_first for repository changes, and the blindness check, through the real harness.

Models are the loopback OpenAI/Anthropic servers (the real wire formats, every request recorded) and the
`scripted:` provider; tools, probes and the gate are real. Decision documents: tests/test_decision_modes.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from blind_samples import (
    DEMO,
    POSITION,
    SENTINEL,
    SIX,
    texts,
)
from builders import make_case
from llm_servers import AnthropicServer, OpenAIServer, Recorded, turn
from projects import PY_BASE, PY_HEAD
from showcause.core.errors import InputError
from showcause.core.result import ReviewResult
from showcause.judges.base import ReviewRequest
from showcause.judges.blind import READ_TOOLS
from showcause.judges.blindness import Thresholds, check_blindness, words
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

# ---- the blindness check ---------------------------------------------------------------------------------

def test_words_are_unicode_runs_case_folded_and_nfkc_normalized():
    full_width_api = "\uff21\uff30\uff29"
    assert words(f"Straße, {full_width_api}-Gateway_v2 über 5xx!") == ["strasse", "api", "gateway_v2", "über", "5xx"]


def test_shingles_never_span_a_field_boundary():
    proposal = "a b c d e f g h i j"                     # 10 words: 6 five-word shingles
    fields = ["x a b c", "d e f g h i j"]
    # Joined, the two fields would hold every shingle of the proposal; per field only 3 of them.
    assert check_blindness(proposal, [" ".join(fields)]).score == 1.0
    check = check_blindness(proposal, fields)
    assert (check.score, check.n, check.shared, check.total) == (0.5, 5, 3, 6)
    assert check.warning and check.leak


def test_short_proposals_use_their_word_count_and_empty_ones_score_zero():
    check = check_blindness("Use Redis", ["we could use redis here"])
    assert (check.n, check.score, check.leak) == (2, 1.0, True)
    empty = check_blindness("", ["anything at all"])
    assert (empty.score, empty.total, empty.warning, empty.leak) == (0.0, 0, False, False)


def test_thresholds_warn_never_above_leak_and_out_of_range_is_bad_input():
    assert Thresholds(warn=0.6, leak=0.3).effective_warn == 0.3
    check = check_blindness("a b c d e f", ["a b c d e"], Thresholds(warn=0.6, leak=0.9))   # 1 of 2 shingles
    assert check.score == 0.5 and not check.warning and not check.leak
    assert check_blindness("a b c d e f", ["a b c d e"], Thresholds(warn=0.6, leak=0.5)).leak
    for bad in ({"warn": -0.1}, {"leak": 1.5}, {"leak": 0.0}):
        with pytest.raises(InputError):
            Thresholds(**bad)


# ---- repository blind_first ------------------------------------------------------------------------------

def _claim(text: str, refs: list[str]) -> dict[str, Any]:
    return {"claim": text, "evidence_refs": refs, "result": "confirmed", "verdict": "MODIFY", "severity": "high"}


DEMO_CLAIMS = [
    _claim("settings.json still names apply_discount", ["T1", "settings.json:1"]),          # phase 1 (base)
    _claim("src/shop/pricing.py:8 apply_discount is gone", ["src/shop/pricing.py:8"]),       # shown on base only
    _claim("settings.json still names apply_discount", ["T5", "settings.json:1"]),           # the probe (head)
    _claim("tests/test_cart.py::test_total_with_discount fails",
           ["T3", "tests/test_cart.py::test_total_with_discount"]),
]


@pytest.fixture(scope="module")
def demo_run() -> tuple[ReviewResult, list[Recorded]]:
    """One blind_first review of the demo case over HTTP, shared by the tests below (probes take seconds)."""
    with OpenAIServer() as server:
        server.add_turns(
            turn(tool_calls=[("search", {"pattern": "apply_discount", "fixed": True}),
                             ("run_test", {"test": "tests/test_cart.py"})]),
            turn(content=json.dumps({"summary": f"Keep percent semantics. {POSITION}",
                                     "risks": ["settings.json names apply_discount"]})),
            turn(content=json.dumps({"summary": "the rename is incomplete", "claims": DEMO_CLAIMS})))
        with open_snapshot(case=DEMO) as snap:
            request = ReviewRequest(task="Allow discounts in steps of 0.1%.", plan=f"Rename it. {SENTINEL}",
                                    model="openai:test-model", base_url=server.url)
            result = run_review(tool_context(snap), "blind_first", request)
        return result, server.posts()


def test_repo_blind_first_end_to_end_over_http(demo_run: tuple[ReviewResult, list[Recorded]]):
    result, posts = demo_run
    assert len(posts) == 3
    assert [{t["function"]["name"] for t in p.body["tools"]} for p in posts] == [set(READ_TOOLS)] * 2 + [SIX]
    calls = [(c.id, c.tool, c.tree, c.ok) for c in result.tool_calls]
    assert calls == [("T1", "search", "base", True), ("T2", "run_test", "base", False),
                     ("T3", "run_test", "head", True), ("T4", "typecheck", "head", True),
                     ("T5", "search", "head", True)]
    assert "run_test is not available here" in result.tool_calls[1].output
    records = result.to_json()["tool_calls"]
    assert [r.get("tree") for r in records] == ["base", "base", None, None, None]
    assert [(c.status, c.verdict) for c in result.claims] == [("downgraded", "WARNING"), ("downgraded", "WARNING"),
                                                            ("validated", "MODIFY"), ("validated", "MODIFY"),
                                                            ("validated", "MODIFY")]
    assert [a.type for a in result.claims[2].artifacts] == ["dangling_reference"]
    assert [a.type for a in result.claims[3].artifacts] == ["test_regression"]
    # The new type error the model did not claim is the probes' own claim (the floor); the two it did, not twice.
    assert [c.source for c in result.claims] == ["model"] * 4 + ["probe"]
    assert [(a.type, a.tool_call) for a in result.claims[4].artifacts] == [("new_type_error", "T4")]
    assert result.verdict == "MODIFY" and result.error is None
    meta = result.meta
    assert (meta.mode, meta.phases, meta.usage["turns"]) == ("blind_first", 2, 3)
    assert meta.usage["prompt_tokens"] == 33 and meta.blindness is not None and meta.blindness["score"] == 0.0
    assert set(meta.prompts or {}) == {"blind_first", "blind_first_explore", "blind_first_reveal"}
    # The reveal continues the conversation of phase 1 (its tool calls and its answer included).
    p1, p3 = posts[1].body["messages"], posts[2].body["messages"]
    assert p3[:len(p1)] == p1 and p3[len(p1)]["role"] == "assistant" and POSITION in p3[len(p1)]["content"]


def test_the_plan_never_reaches_phase_one(demo_run: tuple[ReviewResult, list[Recorded]]):
    result, posts = demo_run
    phase1, phase2 = texts(posts[:2]), texts(posts[2:])
    assert all(SENTINEL not in t and "## The change (unified diff)" not in t and "+++ b/" not in t for t in phase1)
    assert all("Allow discounts in steps of 0.1%." in t for t in phase1)
    assert SENTINEL in phase2[0] and "## The change (unified diff)" in phase2[0] and "T3 run_test" in phase2[0]
    dumped = json.dumps(result.to_json())
    assert SENTINEL not in dumped and POSITION not in dumped


def test_phase_one_calls_never_validate_a_claim(demo_run: tuple[ReviewResult, list[Recorded]]):
    result, _posts = demo_run
    base_search, head_search = result.tool_calls[0], result.tool_calls[4]
    # The same file:line is shown on both trees; only the head call can carry evidence.
    assert "settings.json:1:" in base_search.output and "settings.json:1:" in head_search.output
    assert base_search.artifacts == [] and base_search.shown == []
    assert [(a.file, a.line) for a in head_search.artifacts] == [("settings.json", 1)]
    # Same claim text and location as the validated claim 3: only the cited (base) call differs.
    assert result.claims[0].claim.claim == result.claims[2].claim.claim
    assert result.claims[0].artifacts == [] and result.claims[1].artifacts == []
    assert "settings.json:1 was not shown by the cited calls" in result.claims[0].reasons
    assert "src/shop/pricing.py:8 was not shown by any tool call of this review" in result.claims[1].reasons


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small case (one test file, no type checker) for the runs that need no demo."""
    return make_case(tmp_path_factory.mktemp("blind") / "tiny", PY_BASE, PY_HEAD,
                     checks={"tests": ["tests/test_ops.py"], "typecheck": "none"})


def _review(case: Path, server: OpenAIServer | AnthropicServer, model: str, **fields: Any) -> ReviewResult:
    with open_snapshot(case=case) as snap:
        request = ReviewRequest(model=model, base_url=server.url, **fields)
        return run_review(tool_context(snap), "blind_first", request)


def test_repo_blind_first_over_anthropic_records_a_blindness_warning(tiny: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-blind")
    plan = "make add subtract so the ledger balances without manual fixes"      # 10 words: 6 shingles
    task = "Today: make add subtract so the ledger is right."                     # shares 2 of them
    claim = _claim("tests/test_ops.py::test_add now fails", ["T2", "tests/test_ops.py::test_add"])
    with AnthropicServer() as server:
        server.add_turns(turn(tool_calls=[("find_symbol", {"name": "add"})]),
                         turn(content='{"summary": "add must keep adding"}'),
                         turn(content=json.dumps({"summary": "add is broken", "claims": [claim]})))
        result = _review(tiny, server, "anthropic:test-model", task=task, plan=plan)
        bodies = [p.body for p in server.posts()]
    assert result.verdict == "MODIFY" and result.claims[0].status == "validated"
    assert [(c.id, c.tool, c.tree) for c in result.tool_calls][:2] == [("T1", "find_symbol", "base"),
                                                                      ("T2", "run_test", "head")]
    assert result.meta.blindness == {"score": 0.3333, "n": 5, "shared": 2, "total": 6, "warn_threshold": 0.15,
                                        "leak_threshold": 0.5, "warning": True}
    assert [{t["name"] for t in b["tools"]} for b in bodies] == [set(READ_TOOLS)] * 2 + [SIX]
    assert plan not in json.dumps(bodies[:2]) and plan in json.dumps(bodies[2])


def test_repo_blindness_leak_refuses_before_any_request_or_tool(tiny: Path):
    with OpenAIServer() as server:
        result = _review(tiny, server, "openai:test-model", task="Make add subtract, as agreed with finance.",
                         plan="make add subtract as agreed with finance")
        assert server.requests == []
    assert result.verdict == "INCONCLUSIVE" and result.error is not None
    assert result.error["code"] == "BLINDNESS_LEAK" and result.tool_calls == []
    assert result.meta.blindness["score"] == 1.0


def test_repo_malformed_phase_one_fails_before_the_probes(tiny: Path):
    with OpenAIServer() as server:
        server.add_turns(turn(content="no json here"), turn(content="none here either"))
        result = _review(tiny, server, "openai:test-model", task="t", plan=SENTINEL)
        posts = texts(server.posts())
    assert len(posts) == 2 and all(SENTINEL not in p for p in posts)
    assert result.error is not None and result.error["code"] == "MALFORMED_RESPONSE"
    assert result.tool_calls == [] and result.meta.phases == 0


def test_repo_malformed_phase_two_leaves_the_probes_verdict(tiny: Path):
    with OpenAIServer() as server:
        server.add_turns(turn(content='{"summary": "add adds"}'), turn(content="no json"), turn(content="nope"))
        result = _review(tiny, server, "openai:test-model", task="t", plan=SENTINEL)
        posts = texts(server.posts())
    assert len(posts) == 3 and SENTINEL not in posts[0] and SENTINEL in posts[1]
    # The probes had already shown the change breaking a test: that stands (MODIFY), and the result says the
    # model failed (tests/test_claim_floor.py has the rule on its own).
    assert (result.verdict, result.model_verdict, result.error) == ("MODIFY", "INCONCLUSIVE", None)
    assert result.meta.model_error["code"] == "MALFORMED_RESPONSE"
    assert [c.source for c in result.claims] == ["probe"] and [c.tool for c in result.tool_calls] == ["run_test"]


@pytest.mark.parametrize("tokens", [None, 20_000])
def test_repo_budget_exhausted_before_phase_two_runs_no_probe(tiny: Path, tmp_path: Path, tokens: int | None):
    case = tiny
    if tokens is not None:   # the budget comes from the policy: here the base tree's own config lowers it
        case = tmp_path / "lowered"
        subprocess.run(["cp", "-r", str(tiny), str(case)], check=True)
        (case / "base" / ".showcause.toml").write_text(f"[review]\nblind_max_review_tokens = {tokens}\n",
                                                       encoding="utf-8")
    total = tokens or 100_000
    with OpenAIServer() as server:
        server.add_turns(turn(content='{"summary": "add adds"}',
                              usage={"prompt_tokens": total - 300, "completion_tokens": 100}))
        result = _review(case, server, "openai:test-model", task="t", plan="p")
        assert len(server.posts()) == 1
    assert result.verdict == "INCONCLUSIVE" and result.error is not None
    assert result.error["code"] == "BUDGET_EXCEEDED" and result.error["message"].startswith("phase 2 cannot start")
    assert result.meta.budget_exhausted is True and result.meta.phases == 1 and result.tool_calls == []
