"""Model-driven modes through the real harness: a loopback OpenAI-compatible server and `scripted:`."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from llm_servers import OpenAIServer, turn
from showcause.judges.base import ReviewRequest
from showcause.judges.budget import Budget
from showcause.judges.loop import ANSWER_SCHEMA
from showcause.policy import load_policy
from showcause.providers.base import DEFAULT_OPTIONS, CompletionOptions, Message, ModelTurn, Usage, send
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo-case"
KEEP = Path(__file__).resolve().parents[1] / "examples" / "keep-case"
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
GOOD = {"summary": "renamed hook still configured", "claims": [{
    "claim": "apply_discount was removed but settings.json still names it", "evidence_refs": ["T4", "settings.json:1"],
    "result": "confirmed", "verdict": "MODIFY", "severity": "high"}]}


def review_with(server: OpenAIServer, case: Path = DEMO, mode: str = "evidence_gate"):
    with open_snapshot(case=case) as snap:
        return run_review(tool_context(snap), mode, ReviewRequest(task="t", plan="p", model="openai:test-model",
                                                                  base_url=server.url))


def test_evidence_gate_over_http_validates_a_real_finding():
    with OpenAIServer() as server:
        server.add_turns(turn(tool_calls=[("search", {"pattern": "apply_discount", "fixed": True})]),
                         turn(content="```json\n" + json.dumps(GOOD) + "\n```"))
        result = review_with(server)
        bodies = [r.body for r in server.posts()]
    assert result.verdict == "MODIFY" and result.claims[0].status == "validated"
    assert [c.tool for c in result.tool_calls] == ["run_test", "typecheck", "search", "search"]
    # The probes' outputs were in the first prompt; the tool result came back as a `tool` message.
    first_user = bodies[0]["messages"][1]["content"]
    assert "T1 run_test" in first_user and "## The change (unified diff)" in first_user
    assert bodies[1]["messages"][-1]["role"] == "tool" and bodies[1]["messages"][-1]["content"].startswith("T4 search")
    assert {t["function"]["name"] for t in bodies[0]["tools"]} == {"search", "find_symbol", "read_file", "list_files",
                                                                   "run_test", "typecheck"}
    assert result.meta.prompts["evidence_gate"] and result.meta.usage["prompt_tokens"] == 22


def test_a_review_leaves_the_policy_of_its_context_as_it_was():
    """The review's deadline bounds the processes its tools start through a bounded view of the ledger: the
    context the caller handed in keeps its own policy object."""
    with OpenAIServer() as server, open_snapshot(case=DEMO) as snap:
        server.add_turns(turn(tool_calls=[("search", {"pattern": "apply_discount", "fixed": True})]),
                         turn(content=json.dumps(GOOD)))
        ctx = tool_context(snap)
        policy = ctx.policy
        result = run_review(ctx, "evidence_gate", ReviewRequest(task="t", plan="p", model="openai:test-model",
                                                                base_url=server.url))
    assert [c.tool for c in result.tool_calls][-1] == "search" and result.verdict == "MODIFY"
    assert ctx.policy is policy and policy == load_policy()


@pytest.mark.parametrize("refs", [["T99"], ["T1", "tests/test_cart.py::test_total_without_discount"],
                                  ["src/shop/cart.py:1"], ["T4", "src/shop/pricing.py:9"], []])
def test_gate_attacks_from_a_model_are_downgraded(refs: list[str]):
    claim = {"claim": "apply_discount in settings.json and cart.py is broken", "evidence_refs": refs,
             "result": "confirmed", "verdict": "REPLACE"}
    with OpenAIServer() as server:
        server.add_turns(turn(tool_calls=[("search", {"pattern": "apply_discount"})]),
                         turn(content=json.dumps({"summary": "s", "claims": [claim]})))
        result = review_with(server)
    assert result.model_verdict == "REPLACE"
    assert (result.claims[0].source, result.claims[0].status, result.claims[0].verdict) == ("model", "downgraded",
                                                                                            "WARNING")
    # The review still blocks, on what the probes validated on their own (the floor), never on the model's claim.
    assert result.verdict == "MODIFY"
    assert [(c.source, c.status, c.artifacts[0].type) for c in result.claims[1:]] == [
        ("probe", "validated", "test_regression"), ("probe", "validated", "new_type_error"),
        ("probe", "validated", "dangling_reference")]


def test_a_model_that_never_stops_calling_tools_is_cut_off():
    with OpenAIServer(repeat_last=True) as server:
        server.add_turns(turn(tool_calls=[("list_files", {})]))
        result = review_with(server, KEEP)
        answered_without_tools = [r for r in server.posts() if "tools" not in r.body]
    budget = Budget()
    model_calls = [c for c in result.tool_calls if c.tool == "list_files"]
    assert len(model_calls) == budget.tool_calls          # never more than the budget was run
    assert result.verdict == "INCONCLUSIVE" and result.error and result.error["code"] == "BUDGET_EXCEEDED"
    assert answered_without_tools, "the forced final turn was sent without tools"


def test_malformed_answer_gets_one_repair_then_fails():
    with OpenAIServer() as server:
        server.add_turns(turn(content="I think it is fine."), turn(content='{"claims": []}'))
        assert review_with(server, KEEP, "decision_judge").verdict == "KEEP"
    with OpenAIServer() as server:
        server.add_turns(turn(content="nope"), turn(content="still nope"))
        result = review_with(server, KEEP, "decision_judge")
    assert result.verdict == "INCONCLUSIVE" and result.error == {
        "code": "MALFORMED_RESPONSE",
        "message": "the answer holds no JSON object; reply with only the JSON final answer"}


def test_turns_without_tools_ask_for_the_answer_schema():
    with OpenAIServer() as server:
        server.add_turns(turn(tool_calls=[("list_files", {})]), turn(content="Looks fine to me."),
                         turn(content='{"summary": "ok", "claims": []}'))
        assert review_with(server, KEEP).verdict == "KEEP"
        bodies = [r.body for r in server.posts()]
    assert ["tools" in b for b in bodies] == [True, True, False]   # the repair turn has no tools
    assert ["response_format" in b for b in bodies] == [False, False, True]
    assert bodies[2]["response_format"] == {"type": "json_schema",
                                            "json_schema": {"name": "answer", "schema": ANSWER_SCHEMA}}
    assert set(ANSWER_SCHEMA["properties"]) == {"summary", "claims"}
    # Shape only: llama.cpp unrolls a `maxLength: 4000` into thousands of grammar rules and its server dies.
    assert "maxLength" not in json.dumps(ANSWER_SCHEMA) and "maxItems" not in json.dumps(ANSWER_SCHEMA)
    assert ANSWER_SCHEMA["$defs"]["Claim"]["properties"]["verdict"] == {"enum": ["WARNING", "MODIFY", "REPLACE"],
                                                                        "type": "string"}


def test_a_server_that_rejects_the_answer_schema_gets_the_call_without_it():
    with OpenAIServer(reject_params={"response_format"}) as server:
        server.add_turns(turn(content="prose"), turn(content='{"claims": []}'))
        assert review_with(server, KEEP, "decision_judge").verdict == "KEEP"
        posts = server.posts()
    # OpenAI's form refused (400 naming the parameter): llama.cpp's form; refused too: sent without it, and the
    # provider stops sending it.
    assert [r.body.get("response_format", {}).get("type") for r in posts] == ["json_schema", "json_object", None,
                                                                             None]
    assert posts[1].body["response_format"]["schema"] == ANSWER_SCHEMA


def test_providers_written_for_keyword_arguments_still_work():
    """A plugin whose `complete` takes keywords (written before CompletionOptions, or before `response_schema`)
    is called with keywords; one that takes `options` gets the options object itself."""
    seen: dict[str, Any] = {}
    reply = ModelTurn("{}", (), Usage(), "stop", "m")

    class OldPlugin:
        name = "old:plugin"

        def complete(self, messages, *, tools=(), tool_choice="auto", max_tokens=8000, temperature=None,
                     timeout_s=120.0):
            seen["old"] = {"tools": tools, "tool_choice": tool_choice, "max_tokens": max_tokens,
                           "temperature": temperature, "timeout_s": timeout_s}
            return reply

    class Flexible:
        name = "flexible:plugin"

        def complete(self, messages, **kwargs):
            seen["flexible"] = kwargs
            return reply

    class Current:
        name = "current:plugin"

        def complete(self, messages, options=DEFAULT_OPTIONS):
            seen["current"] = options
            return reply

    options = CompletionOptions(tool_choice="none", max_tokens=300, temperature=0.5, timeout_s=9.0,
                                response_schema=ANSWER_SCHEMA)
    messages = [Message("user", "review")]
    assert all(send(p, messages, options) is reply for p in (OldPlugin(), Flexible(), Current()))
    keywords = {"tools": (), "tool_choice": "none", "max_tokens": 300, "temperature": 0.5, "timeout_s": 9.0}
    assert seen["old"] == keywords
    assert seen["flexible"] == {**keywords, "response_schema": ANSWER_SCHEMA}
    assert seen["current"] is options
    send(Flexible(), messages, dataclasses.replace(options, response_schema=None))
    assert seen["flexible"] == keywords


def test_truncated_answer_is_inconclusive():
    with OpenAIServer() as server:
        server.add_turns(turn(content='{"claims": [', finish_reason="length"))
        result = review_with(server, KEEP, "proposal_first")
    assert result.verdict == "INCONCLUSIVE" and result.error and result.error["code"] == "OUTPUT_TRUNCATED"


def test_cli_scripted_model_and_exit_codes(tmp_path: Path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": [{"name": "search", "arguments": {
        "pattern": "apply_discount", "fixed": True}}]}, {"content": json.dumps(GOOD)}]}))
    env = {**os.environ}
    proc = subprocess.run([SHOWCAUSE, "review", "--case", str(DEMO), "--model", f"scripted:{script}", "--format",
                           "json"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["meta"]["mode"] == "evidence_gate"
    short = tmp_path / "short.json"
    short.write_text(json.dumps({"turns": [{"tool_calls": [{"name": "list_files", "arguments": {}}]}]}))
    out = subprocess.run([SHOWCAUSE, "review", "--case", str(KEEP), "--model", f"scripted:{short}"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 3 and "verdict: INCONCLUSIVE" in out.stdout and "MALFORMED_RESPONSE" in out.stdout
    nokey = subprocess.run([SHOWCAUSE, "review", "--case", str(KEEP), "--model", "openai:gpt-5-mini"],
                           capture_output=True, text=True, timeout=300,
                           env={k: v for k, v in env.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")})
    assert nokey.returncode == 3 and "OPENAI_API_KEY" in nokey.stdout


def test_review_budget_comes_from_the_config(tmp_path: Path):
    """The `[review]` keys of the policy set the budget: here two tool calls and 300 completion tokens a call."""
    config = tmp_path / "budget.toml"
    config.write_text("[review]\nmax_tool_calls = 2\nmax_completion_tokens = 300\n", encoding="utf-8")
    with OpenAIServer(repeat_last=True) as server, open_snapshot(case=KEEP) as snap:
        server.add_turns(turn(tool_calls=[("list_files", {})]))
        result = run_review(tool_context(snap, config), "evidence_gate",
                            ReviewRequest(model="openai:test-model", base_url=server.url))
        bodies = [r.body for r in server.posts()]
    assert len([c for c in result.tool_calls if c.tool == "list_files"]) == 2
    assert {b["max_tokens"] for b in bodies} == {300}
    # Two turns with tools, then forced turns without them (their calls refused) up to the turn limit.
    assert ["tools" in b for b in bodies] == [True, True] + [False] * (Budget().turns - 2)
    assert result.error and result.error["code"] == "BUDGET_EXCEEDED"
    default = load_policy()
    review = default.review
    assert (review.max_tool_calls, review.max_review_tokens, review.max_completion_tokens, review.review_timeout_s,
            review.max_turns) == dataclasses.astuple(Budget())
