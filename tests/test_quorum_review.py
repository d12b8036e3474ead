"""`review --mode quorum`: several members run evidence_gate over one ledger, over loopback servers in both
wire formats; the gate, not a vote, decides what blocks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from llm_servers import AnthropicServer, OpenAIServer, start_server, turn
from quorum_servers import SourceSpec, config_for
from showcause import service
from showcause.core.errors import InputError
from showcause.policy import load_policy
from showcause.service import ChangeSource, ReviewOptions

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]
DEMO, KEEP = ROOT / "examples" / "demo-case", ROOT / "examples" / "keep-case"
TEST_ID = "tests/test_cart.py::test_total_with_discount"
KEY = "sk-test-gated-0005"


def _answer(*claims: dict[str, Any]) -> dict[str, Any]:
    return turn(content=json.dumps({"summary": "s", "claims": list(claims)}))


# Cites the probes' own test call (T1): evidence one member may use as well as another.
REGRESSION = {"claim": f"{TEST_ID} fails on head: the discount hook was renamed", "evidence_refs": ["T1", TEST_ID],
              "result": "confirmed", "verdict": "MODIFY", "severity": "high"}
NOTHING: dict[str, Any] = {"summary": "fine", "claims": []}


def _unvalidated(line: int) -> dict[str, Any]:
    return {"claim": f"Cart.add at src/shop/cart.py:{line} should log the rejected quantity",
            "location": f"src/shop/cart.py:{line}", "evidence_refs": [], "result": "confirmed",
            "verdict": "MODIFY", "severity": "medium"}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUORUM_TEST_KEY", KEY)


def _config(tmp_path: Path, specs: list[SourceSpec], thresholds: dict[str, int]) -> Path:
    path = tmp_path / "quorum.json"
    path.write_text(json.dumps(config_for(specs, thresholds, specs[0].name, timeoutMs=20000)), encoding="utf-8")
    return path


def _review(case: Path, quorum: Path) -> Any:
    return service.review_change(ChangeSource(case=case), ReviewOptions(mode="quorum", quorum=quorum))


def test_one_members_validated_regression_blocks_against_two_keeps_and_escalates(tmp_path: Path):
    a = start_server(OpenAIServer, [_answer(REGRESSION)])
    b = start_server(AnthropicServer, [turn(content=json.dumps(NOTHING))])
    c = start_server(OpenAIServer, [turn(content=json.dumps(NOTHING))])
    d = start_server(AnthropicServer, [_answer({**REGRESSION, "claim": f"{TEST_ID} is broken by the rename"})])
    try:
        path = _config(tmp_path, [SourceSpec("a", a, 1, 1), SourceSpec("b", b, 1, 1), SourceSpec("c", c, 1, 1),
                                  SourceSpec("d", d, 2, 2)], {"tier1": 2, "tier2": 3})
        result = _review(DEMO, path)
        prompts = [srv.posts()[0].body["messages"][-1]["content"] for srv in (b, c)]
    finally:
        for srv in (a, b, c, d):
            srv.stop()
    quorum = result.meta.extras["quorum"]
    # Two KEEPs do not outvote a validated claim: the model's verdict is the member's block.
    assert (result.verdict, result.model_verdict) == ("MODIFY", "MODIFY")
    assert [(m["name"], m["status"], m["verdict"]) for m in quorum["members"]] == [
        ("a", "ok", "MODIFY"), ("b", "ok", "KEEP"), ("c", "ok", "KEEP"), ("d", "ok", "MODIFY")]
    assert quorum["tiers"] == [1, 2]   # tier 1 disagreed: tier 2 ran
    # a's and d's claims cite one failing test: one finding, one claim in the result.
    assert [(f["members"], f["validated"], f["agreeing_weight"], f["reported"]) for f in quorum["findings"]] == [
        (["a", "d"], True, 3, True)]
    first = result.claims[0]
    assert (first.source, first.status, first.claim.claim) == ("model", "validated", REGRESSION["claim"])
    assert [c.source for c in result.claims].count("model") == 1
    # One ledger: the probes' calls once (T1-T3), seen by every member; the members ran no tool of their own.
    assert [c.id for c in result.tool_calls] == ["T1", "T2", "T3"]
    assert all("T1 run_test" in p for p in prompts)
    assert quorum["effective_votes"] == 2      # a = d, b = c
    assert quorum["cost"] == {"tokens": 72, "single_member_tokens": 18.0, "ratio": 4.0, "cost_usd": None,
                              "members_asked": 4, "prompt_tokens": 44}


def test_tier_two_is_never_contacted_when_tier_one_agrees_on_a_validated_block(tmp_path: Path):
    a = start_server(OpenAIServer, [_answer(REGRESSION)])
    b = start_server(AnthropicServer, [_answer({**REGRESSION, "evidence_refs": [TEST_ID]})])
    d = start_server(OpenAIServer, [turn(content=json.dumps(NOTHING))])
    try:
        path = _config(tmp_path, [SourceSpec("a", a, 1, 1), SourceSpec("b", b, 1, 1), SourceSpec("d", d, 2, 2)],
                       {"tier1": 2, "tier2": 3})
        result = _review(DEMO, path)
        contacted = d.posts()
    finally:
        for srv in (a, b, d):
            srv.stop()
    quorum = result.meta.extras["quorum"]
    assert contacted == [] and quorum["tiers"] == [1]
    assert [m["name"] for m in quorum["members"]] == ["a", "b"]
    assert [(f["members"], f["validated"], f["certainty"]) for f in quorum["findings"]] == [(["a", "b"], True, 1.0)]
    assert quorum["effective_votes"] == 1 and quorum["required_weight"] == 2
    assert result.verdict == "MODIFY" and result.meta.model == "quorum:a,b"
    assert result.summary == ("Quorum of 2 answering member(s) over tier(s) 1 (1 independent vote(s), 2x one "
                              "member's tokens): 1 validated finding(s), 0 finding(s) reported by agreement.")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from showcause.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "QUORUM_TEST_KEY": KEY})


def _toml(data: dict[str, Any]) -> str:
    lines = ["[quorum]", f'arbiter = "{data["arbiter"]}"', "timeoutMs = 20000", "[quorum.thresholds]",
             *(f"{k} = {v}" for k, v in data["thresholds"].items())]
    for s in data["sources"]:
        lines += ["[[quorum.sources]]", *(f"{k} = {json.dumps(v)}" for k, v in s.items())]
    return "\n".join(lines) + "\n"


def test_an_unvalidated_modify_of_every_member_stays_a_warning_through_the_cli(tmp_path: Path):
    a = start_server(OpenAIServer, [_answer(_unvalidated(12))])
    b = start_server(AnthropicServer, [_answer(_unvalidated(12))])
    d = start_server(OpenAIServer, [_answer(_unvalidated(12), _unvalidated(20))])
    try:
        config = tmp_path / "showcause.toml"   # the [quorum] table beside the policy's own sections
        data = config_for([SourceSpec("a", a, 1, 1), SourceSpec("b", b, 1, 1), SourceSpec("d", d, 2, 2)],
                          {"tier1": 2, "tier2": 3}, "a")
        config.write_text(_toml(data) + "[review]\nmax_tool_calls = 4\n", encoding="utf-8")
        proc = _cli("review", "--case", str(KEEP), "--mode", "quorum", "--config", str(config), "--format", "json")
    finally:
        for srv in (a, b, d):
            srv.stop()
    assert proc.returncode == 0, proc.stderr     # WARNING: no block
    out = json.loads(proc.stdout)
    quorum = out["meta"]["quorum"]
    assert out["verdict"] == "WARNING" and quorum["tiers"] == [1, 2]   # nothing validated at tier 1: escalated
    assert [(f["members"], f["validated"], f["agreeing_weight"], f["certainty"], f["reported"])
            for f in quorum["findings"]] == [(["a", "b", "d"], False, 4, 1.0, True), (["d"], False, 2, 0.67, False)]
    assert [(c["verdict"], c["model_verdict"], c["gate"]["status"]) for c in out["claims"]] == [
        ("WARNING", "MODIFY", "downgraded")]
    assert quorum["effective_votes"] == 2 and KEY not in proc.stdout + proc.stderr


def test_quorum_options_are_checked_before_any_work(tmp_path: Path):
    with pytest.raises(InputError, match="`quorum` is for `mode` quorum"):
        service.review_change(ChangeSource(case=KEEP), ReviewOptions(mode="evidence_gate", quorum=tmp_path / "q"))
    with pytest.raises(InputError, match="not `model`"):
        service.review_change(ChangeSource(case=KEEP), ReviewOptions(mode="quorum", model="openai:x",
                                                                     quorum=tmp_path / "q"))
    proc = _cli("review", "--case", str(KEEP), "--mode", "quorum", "--quorum", str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "QUORUM_CONFIG" not in proc.stdout and "cannot read" in proc.stderr


def test_no_member_answering_is_inconclusive_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    a = start_server(OpenAIServer, [turn(content=json.dumps(NOTHING))])
    try:
        path = _config(tmp_path, [SourceSpec("a", a, 1, 1)], {"tier1": 1})
        monkeypatch.delenv("QUORUM_TEST_KEY")
        result = _review(KEEP, path)
        contacted = a.posts()
    finally:
        a.stop()
    assert contacted == [] and result.verdict == "INCONCLUSIVE"
    assert result.error == {"code": "PROVIDER_ERROR", "message": "no quorum member answered (a: CONFIG_ERROR)"}
    assert [(m["name"], m["status"]) for m in result.meta.extras["quorum"]["members"]] == [("a", "unavailable")]


def test_the_policy_loader_leaves_the_quorum_table_to_its_reader(tmp_path: Path):
    path = tmp_path / "c.toml"
    path.write_text('[quorum]\narbiter = "a"\n[review]\nmax_tool_calls = 4\n', encoding="utf-8")
    assert load_policy(path).review.max_tool_calls == 4
    path.write_text('[quorums]\narbiter = "a"\n', encoding="utf-8")
    with pytest.raises(InputError, match="unknown sandbox policy section 'quorums'"):
        load_policy(path)
