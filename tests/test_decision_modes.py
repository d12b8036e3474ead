"""Decision documents: strict input, verdicts as models send them, blind_first and proposal_first over the
real wire formats (loopback servers, every request recorded), and the command line's exit codes and flags.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from blind_samples import (
    DEMO,
    EXAMPLE,
    POSITION,
    POSITION_JSON,
    SENTINEL,
    VERDICT_JSON,
    decision,
    run_cli,
    texts,
)
from llm_servers import AnthropicServer, OpenAIServer, turn
from showcause.core.decision import load_decision, parse_verdict
from showcause.core.decision_result import decision_exit_code
from showcause.core.errors import InputError, MalformedAnswer
from showcause.decision.modes import DecisionOptions
from showcause.decision.registry import run_decision
from showcause.judges.blindness import Thresholds, check_blindness
from showcause.judges.budget import Budget

# ---- decision input and answers --------------------------------------------------------------------------

@pytest.mark.parametrize(("change", "message"), [
    ({"review_mode": "blind_first"}, "review_mode: unknown field"),
    ({"risk_level": "extreme"}, "risk_level: Input should be 'low', 'medium', 'high' or 'critical'"),
    ({"objective": "   "}, "objective: must not be blank"),
    ({"objective": "x" * 4001}, "objective: String should have at most 4000 characters"),
    ({"constraints": ["c"] * 51}, "constraints: List should have at most 50 items after validation, not 51"),
    ({"evidence": "one fact"}, "evidence: Input should be a valid list"),
    ({"proposed_solution": 42}, "proposed_solution: Input should be a valid string"),
])
def test_decision_input_is_strict(tmp_path: Path, change: dict[str, Any], message: str):
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data.update(change)
    path = tmp_path / "d.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_decision(path)
    assert err.value.message == f"{path}: invalid decision: {message}"


def test_decision_files_that_are_not_objects_are_bad_input(tmp_path: Path):
    (tmp_path / "a.json").write_text("[1]", encoding="utf-8")
    (tmp_path / "b.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(InputError, match="a decision is a JSON object"):
        load_decision(tmp_path / "a.json")
    with pytest.raises(InputError, match=r"not valid JSON: Expecting property name .* \(line 1, column 2\)"):
        load_decision(tmp_path / "b.json")
    with pytest.raises(InputError, match="no such decision file"):
        load_decision(tmp_path / "missing.json")
    assert load_decision(EXAMPLE).risk_level == "high"


def test_verdicts_are_parsed_as_models_send_them():
    v = parse_verdict("<think>weighing it</think>\n```json\n" + json.dumps(VERDICT_JSON) + "\n```")
    assert v.verdict == "MODIFY" and v.confidence == 0.8 and v.better_alternative is None
    assert v.material_risks == ["the inbox table grows without bound"]
    assert v.critical_assumptions == ["handlers are idempotent"]
    assert v.falsification_probe.expected_signal == "a delivery id missing from the inbox"
    for raw, expected in ((80, 0.8), ("0.35", 0.35), (1, 1.0), ("100%", 1.0), (0.05, 0.05)):
        assert parse_verdict(json.dumps({**VERDICT_JSON, "confidence": raw})).confidence == expected
    assert parse_verdict(json.dumps({**VERDICT_JSON, "verdict": "insufficient evidence"})).verdict == \
        "INSUFFICIENT_EVIDENCE"
    with pytest.raises(MalformedAnswer, match="invalid field confidence"):
        parse_verdict(json.dumps({**VERDICT_JSON, "confidence": 150}))
    with pytest.raises(MalformedAnswer, match="invalid field falsification_probe"):
        parse_verdict(json.dumps({k: v for k, v in VERDICT_JSON.items() if k != "falsification_probe"}))


# ---- decision reviews over HTTP --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_decision_blind_first_over_http(kind: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-blind")
    server_type = OpenAIServer if kind == "openai" else AnthropicServer
    d = decision(proposed_solution=decision().proposed_solution + f" {SENTINEL}")
    with server_type() as server:
        server.add_turns(turn(content=json.dumps(POSITION_JSON)),
                         turn(content="<think>compare</think>```json\n" + json.dumps(VERDICT_JSON) + "\n```"))
        result = run_decision(d, "blind_first", DecisionOptions(model=f"{kind}:test-model", base_url=server.url))
        posts = server.posts()
    assert len(posts) == 2
    phase1, phase2 = texts(posts)
    # Phase 1 saw the problem and never the proposal; phase 2 is the same conversation plus the reveal.
    assert d.objective in phase1 and "webhook" in phase1
    assert SENTINEL not in phase1 and "<proposed_solution>" not in phase1
    assert SENTINEL in phase2 and "<proposed_solution>" in phase2 and POSITION in phase2
    first_user = posts[0].body["messages"][-1]
    assert posts[1].body["messages"][len(posts[0].body["messages"]) - 1] == first_user
    assert all("tools" not in p.body for p in posts)
    data = result.to_json()
    assert {k: data[k] for k in ("kind", "verdict", "recommendation", "critical_assumptions", "material_risks",
                                  "better_alternative", "falsification_probe", "confidence")} == {
        "kind": "decision", "verdict": "MODIFY",
        "recommendation": "Keep the inbox, but add a unique key on the delivery id.",
        "critical_assumptions": ["handlers are idempotent"],
        "material_risks": ["the inbox table grows without bound"], "better_alternative": None,
        "falsification_probe": {"description": "kill a pod during a burst of deliveries",
                                "expected_signal": "a delivery id missing from the inbox"},
        "confidence": 0.8}
    assert "error" not in data and decision_exit_code(result) == 0
    meta = data["meta"]
    assert (meta["mode"], meta["phases"], meta["usage"]["prompt_tokens"], meta["usage"]["completion_tokens"]) == \
        ("blind_first", 2, 22, 14)
    assert set(meta["prompts"]) == {"decision_system", "decision_blind", "decision_reveal", "decision_verdict"}
    assert meta["blindness"]["warning"] is False
    # Neither the proposal nor the phase-1 position is ever returned.
    dumped = json.dumps(data)
    assert SENTINEL not in dumped and POSITION not in dumped and "preferred_solution" not in dumped


def test_decision_proposal_first_sees_the_proposal_in_one_pass_and_only_warns_on_a_leak():
    proposal = decision().proposed_solution
    leaky = decision(context=proposal, proposed_solution=f"{proposal} {SENTINEL}")
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps({**VERDICT_JSON, "verdict": "KEEP"})))
        result = run_decision(leaky, "proposal_first", DecisionOptions(model="openai:test-model", base_url=server.url))
        posts = server.posts()
    assert len(posts) == 1 and SENTINEL in texts(posts)[0]
    assert result.verdict == "KEEP" and result.meta.phases == 1 and decision_exit_code(result) == 0
    assert result.meta.blindness["warning"] is True and result.meta.blindness["score"] > 0.9
    assert set(result.meta.prompts) == {"decision_system", "decision_proposal_first", "decision_verdict"}


def test_blindness_leak_refuses_a_decision_before_any_request():
    leaky = decision(context="As discussed: " + decision().proposed_solution)
    with OpenAIServer() as server:
        result = run_decision(leaky, "blind_first", DecisionOptions(model="openai:test-model", base_url=server.url))
        requests = list(server.requests)
    assert requests == []
    assert result.verdict == "INCONCLUSIVE" and result.error is not None and result.error["code"] == "BLINDNESS_LEAK"
    assert result.error["message"].startswith("100% of the proposal's 5-word sequences")
    assert result.meta.blindness["score"] == 1.0 and result.meta.phases == 0
    assert decision_exit_code(result) == 3 and decision_exit_code(result, "MODIFY") == 3


def test_blindness_warning_threshold_is_recorded_and_configurable():
    # 3 of the proposal's 6 five-word shingles sit in one constraint: 0.5 would leak, so raise the leak bar.
    d = decision(constraints=["rotate keys hourly via vault agent sidecar"],
                 proposed_solution="rotate keys hourly via vault agent sidecar then restart pods")
    check = check_blindness(d.proposed_solution, d.blind_fields())
    assert (check.shared, check.total) == (3, 6)
    for limits, warned in ((Thresholds(), True), (Thresholds(warn=0.6, leak=0.9), False)):
        with OpenAIServer() as server:
            server.add_turns(turn(content=json.dumps(POSITION_JSON)), turn(content=json.dumps(VERDICT_JSON)))
            result = run_decision(d, "blind_first", DecisionOptions(model="openai:test-model", base_url=server.url,
                                                                    thresholds=Thresholds(limits.warn, 0.9)))
        assert result.verdict == "MODIFY"
        assert result.meta.blindness == {"score": 0.5, "n": 5, "shared": 3, "total": 6,
                                            "warn_threshold": limits.warn, "leak_threshold": 0.9,
                                            "warning": warned}


def test_malformed_phase_one_gets_one_repair_then_fails_without_a_reveal():
    with OpenAIServer() as server:
        server.add_turns(turn(content="I would use a queue."), turn(content="Still prose, sorry."))
        result = run_decision(decision(), "blind_first", DecisionOptions(model="openai:test-model",
                                                                         base_url=server.url))
        posts = texts(server.posts())
    assert len(posts) == 2 and "Your answer could not be used" in posts[1]
    assert all("<proposed_solution>" not in p for p in posts)
    assert result.error == {"code": "MALFORMED_RESPONSE",
                            "message": "the answer holds no JSON object; reply with only the JSON object asked for"}
    assert result.meta.phases == 0 and decision_exit_code(result) == 3


def test_malformed_phase_two_is_repaired_once_then_fails():
    bad = json.dumps({**VERDICT_JSON, "verdict": "MAYBE"})
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps(POSITION_JSON)), turn(content=bad),
                         turn(content=json.dumps(VERDICT_JSON)))
        repaired = run_decision(decision(), "blind_first", DecisionOptions(model="openai:test-model",
                                                                           base_url=server.url))
        third = texts(server.posts())[2]
    assert repaired.verdict == "MODIFY" and repaired.meta.usage["turns"] == 3
    assert "invalid field verdict" in third and "<proposed_solution>" in third
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps(POSITION_JSON)), turn(content=bad), turn(content=bad))
        failed = run_decision(decision(), "blind_first", DecisionOptions(model="openai:test-model",
                                                                         base_url=server.url))
    assert failed.error is not None and failed.error["code"] == "MALFORMED_RESPONSE"
    assert failed.error["message"].startswith("invalid field verdict: Input should be 'KEEP'")
    assert failed.meta.phases == 1


def test_truncated_verdict_is_output_truncated_without_a_repair():
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps(POSITION_JSON)),
                         turn(content='{"verdict": "KE', finish_reason="length"))
        result = run_decision(decision(), "blind_first", DecisionOptions(model="openai:test-model",
                                                                         base_url=server.url))
        assert len(server.posts()) == 2
    assert result.error is not None and result.error["code"] == "OUTPUT_TRUNCATED"


def test_budget_exhausted_after_phase_one_never_reveals_and_does_not_pass():
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps(POSITION_JSON),
                              usage={"prompt_tokens": 59_000, "completion_tokens": 600}))
        result = run_decision(decision(), "blind_first", DecisionOptions(model="openai:test-model",
                                                                         base_url=server.url))
        assert len(server.posts()) == 1
    assert (result.verdict, result.confidence, result.meta.phases, result.meta.budget_exhausted) == \
        ("INSUFFICIENT_EVIDENCE", 0.0, 1, True)
    assert result.error is None and decision_exit_code(result) == 3


def test_a_review_whose_two_phases_cannot_fit_is_refused_before_any_request():
    with OpenAIServer() as server:
        result = run_decision(decision(), "blind_first", DecisionOptions(
            model="openai:test-model", base_url=server.url, budget=Budget(tokens=2_500)))
        assert server.requests == []
    assert result.error is not None and result.error["code"] == "BUDGET_EXCEEDED"
    assert result.error["message"].endswith("the budget is 2500")


# ---- the command line ------------------------------------------------------------------------------------

def _script(tmp_path: Path, name: str, turns: list[dict[str, Any]]) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return f"scripted:{path}"


def test_cli_decision_exit_codes(tmp_path: Path):
    keep = _script(tmp_path, "keep", [{"content": json.dumps(POSITION_JSON)},
                                      {"content": json.dumps({**VERDICT_JSON, "verdict": "KEEP"})}])
    modify = _script(tmp_path, "modify", [{"content": json.dumps(POSITION_JSON)},
                                          {"content": json.dumps(VERDICT_JSON)}])
    broke = _script(tmp_path, "broke", [{"content": json.dumps(POSITION_JSON),
                                         "usage": {"prompt_tokens": 59_800, "completion_tokens": 10}}])
    ex = str(EXAMPLE)
    proc = run_cli("--decision", ex, "--model", keep, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "KEEP"
    # A decision verdict rests on no mechanical artifact: MODIFY passes unless the caller opts in.
    assert run_cli("--decision", ex, "--model", modify).returncode == 0
    out = tmp_path / "r.md"
    proc = run_cli("--decision", ex, "--model", modify, "--fail-on", "MODIFY", "--format", "markdown", "--output",
                   str(out))
    assert proc.returncode == 1 and out.read_text(encoding="utf-8").startswith(
        "✏️ **showcause decision review: MODIFY** (blind_first)")
    proc = run_cli("--decision", ex, "--model", broke, "--format", "json")
    assert proc.returncode == 3 and json.loads(proc.stdout)["meta"]["budget_exhausted"] is True
    proc = run_cli("--decision", ex, "--mode", "proposal_first", "--model", keep, "--format", "text")
    assert proc.returncode == 0 and proc.stdout.startswith("verdict: KEEP")


def _leaky_decision(tmp_path: Path) -> tuple[Path, str]:
    """A decision file whose context holds 4 of the proposal's 6 five-word shingles, and a two-turn model."""
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data["proposed_solution"] = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    data["context"] = "alpha beta gamma delta epsilon zeta eta theta"
    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps(data), encoding="utf-8")
    return leaky, _script(tmp_path, "m", [{"content": json.dumps(POSITION_JSON)},
                                          {"content": json.dumps(VERDICT_JSON)}])


@pytest.mark.isolation
def test_cli_blindness_flags(tmp_path: Path):
    leaky, model = _leaky_decision(tmp_path)
    proc = run_cli("--decision", str(leaky), "--model", model, "--format", "json")
    assert proc.returncode == 3 and json.loads(proc.stdout)["error"]["code"] == "BLINDNESS_LEAK"
    proc = run_cli("--decision", str(leaky), "--model", model, "--format", "json", "--blindness-leak", "0.7")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["meta"]["blindness"]["warning"] is True
    proc = run_cli("--case", str(DEMO), "--mode", "blind_first", "--model", model, "--format", "json",
                   "--task", "rename apply_discount to discounted", "--plan", "rename apply_discount to discounted")
    assert proc.returncode == 3 and json.loads(proc.stdout)["error"]["code"] == "BLINDNESS_LEAK"


def test_cli_blindness_thresholds_and_budget_from_config(tmp_path: Path):
    leaky, model = _leaky_decision(tmp_path)
    config = tmp_path / "policy.toml"

    def decide(toml: str, *flags: str) -> subprocess.CompletedProcess[str]:
        config.write_text(toml, encoding="utf-8")
        return run_cli("--decision", str(leaky), "--model", model, "--format", "json", "--config", str(config),
                       *flags)

    proc = decide("[review]\nblindness_leak = 0.7\n")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["meta"]["blindness"] == {"score": 0.6667, "n": 5, "shared": 4, "total": 6,
                                                            "warn_threshold": 0.15, "leak_threshold": 0.7,
                                                            "warning": True}
    proc = decide("[review]\nblindness_warn = 0.7\nblindness_leak = 0.9\n")
    assert proc.returncode == 0 and json.loads(proc.stdout)["meta"]["blindness"]["warning"] is False
    proc = decide("[review]\nblindness_leak = 0.7\n", "--blindness-leak", "0.6")   # the flag wins
    assert proc.returncode == 3 and json.loads(proc.stdout)["error"]["code"] == "BLINDNESS_LEAK"
    proc = decide("[review]\nblindness_leak = 0.7\nmax_review_tokens = 300\n")      # the budget too
    assert proc.returncode == 3 and json.loads(proc.stdout)["error"]["code"] == "BUDGET_EXCEEDED"
    for toml, message in (("[review]\nblindness_leak = 0\n", "blindness_leak must be above 0 and at most 1"),
                          ("[review]\nblindness_warn = 1.5\n", "blindness_warn must be 0 and at most 1, got 1.5"),
                          ("[review]\nblindness_warn = \"high\"\n", "blindness_warn must be a number")):
        proc = decide(toml)
        assert proc.returncode == 2 and message in proc.stderr and proc.stdout == "", proc.stderr
    proc = run_cli("--decision", str(leaky), "--model", model, "--config", str(tmp_path / "none.toml"))
    assert proc.returncode == 2 and "none.toml: no such config file" in proc.stderr


@pytest.mark.isolation
def test_repository_config_may_lower_the_blindness_thresholds_only(tmp_path: Path):
    task = "Please rename apply_discount to discounted and take per-mille values."
    plan = "Rename apply_discount to discounted and keep every caller on percent for now."   # 1 of 9 shingles
    model = _script(tmp_path, "m", [])   # never called: the check refuses first
    for leak, code, message in ((0.1, 3, "BLINDNESS_LEAK"), (0.9, 2, "blindness_leak may only be tightened")):
        case = tmp_path / f"case-{leak}"
        subprocess.run(["cp", "-r", str(DEMO), str(case)], check=True)
        (case / "base" / ".showcause.toml").write_text(f"[review]\nblindness_leak = {leak}\n", encoding="utf-8")
        proc = run_cli("--case", str(case), "--mode", "blind_first", "--model", model, "--format", "json",
                       "--task", task, "--plan", plan)
        assert proc.returncode == code, proc.stderr
        if code == 3:
            result = json.loads(proc.stdout)
            assert result["error"]["code"] == message
            assert result["meta"]["blindness"]["shared"] == 1 and result["meta"]["blindness"]["leak_threshold"] == 0.1
        else:
            assert message in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize(("args", "message"), [
    (["--case", str(DEMO)], "--decision takes no --case"),
    (["--mode", "evidence_gate"], "unknown decision mode 'evidence_gate'; known: blind_first, proposal_first"),
    (["--format", "sarif"], "--decision takes --format json, markdown, text"),
    (["--fail-on", "KEEP"], "--decision takes --fail-on never, MODIFY, WARNING"),
    (["--blindness-leak", "1.5"], "blindness leak threshold must be between 0 and 1"),
])
def test_cli_decision_usage_errors_exit_2(args: list[str], message: str):
    proc = run_cli("--decision", str(EXAMPLE), "--model", "openai:gpt-5-mini", *args)
    assert proc.returncode == 2 and message in proc.stderr and proc.stdout == ""


def test_cli_invalid_decision_or_missing_model_exit_2_and_write_nothing(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"objective": "x", "decision_type": "vibes"}), encoding="utf-8")
    out = tmp_path / "out.json"
    proc = run_cli("--decision", str(bad), "--model", "openai:gpt-5-mini", "--output", str(out))
    assert proc.returncode == 2 and not out.exists()
    assert "decision_type: Input should be 'architecture'" in proc.stderr and "proposed_solution: Field required" \
        in proc.stderr
    proc = run_cli("--decision", str(EXAMPLE))
    assert proc.returncode == 2 and "decision mode 'blind_first' needs a model" in proc.stderr
