"""Decision telemetry: opt-in (config key, env var), one whole JSON line per review, no content of any review
ever in the file (sentinels in every content field), outcomes appended and summarised, and the CLI's exit codes.
Decision and change reviews run through the real harness with the `scripted:` provider."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from blind_samples import EXAMPLE, POSITION, POSITION_JSON, SHOWCAUSE, VERDICT_JSON
from builders import git_repo
from showcause import service
from showcause.cli.text import outcomes_text
from showcause.core.errors import InputError
from showcause.decision.review import review_decision_fields
from showcause.service import ChangeSource, ReviewOptions
from showcause.service.outcomes import outcomes_summary, record_outcome
from showcause.telemetry import ENV, append

S = "CONTENT-SENTINEL-5f3a91"     # planted in every content field; must never reach the log

REVIEW_KEYS = {"type", "id", "timestamp", "mode", "model", "usage", "cost_usd", "seconds", "verdict", "status",
               "error_code", "kind"}


def script(tmp_path: Path, *turns: dict[str, Any]) -> str:
    path = tmp_path / f"script-{S}-{len(list(tmp_path.glob('script-*')))}.json"   # the file name is content too
    path.write_text(json.dumps({"turns": list(turns)}), encoding="utf-8")
    return f"scripted:{path}"


def fields(**changes: Any) -> dict[str, Any]:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data.update(objective=f"{data['objective']} {S}-objective", constraints=[f"{S}-constraint"],
                context=f"{S}-context", environment=f"{S}-environment", evidence=[f"{S}-evidence"],
                proposed_solution=f"{data['proposed_solution']} {S}-proposal")
    data.update(changes)
    return data


def answers(tmp_path: Path) -> str:
    position = {**POSITION_JSON, "preferred_solution": f"{S}-position {POSITION}"}
    verdict = {**VERDICT_JSON, "recommendation": f"{S}-recommendation", "risks": [f"{S}-risk"],
               "better_alternative": f"{S}-alternative"}
    return script(tmp_path, {"content": json.dumps(position), "usage": {"prompt_tokens": 100, "completion_tokens": 40}},
                  {"content": json.dumps(verdict), "usage": {"prompt_tokens": 300, "completion_tokens": 60}})


def lines(log: Path) -> list[dict[str, Any]]:
    text = log.read_text(encoding="utf-8")
    assert S not in text and POSITION not in text
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "logs" / "reviews.jsonl"
    monkeypatch.setenv(ENV, str(path))
    return path


def test_a_decision_review_from_fields_is_logged_without_its_content(tmp_path: Path, log: Path):
    result = review_decision_fields(fields(review_mode="blind_first"), model=answers(tmp_path))
    assert result["kind"] == "decision" and result["verdict"] == "MODIFY"
    assert result["recommendation"] == f"{S}-recommendation" and POSITION not in json.dumps(result)
    assert (result["meta"]["mode"], result["meta"]["phases"], result["confidence"]) == ("blind_first", 2, 0.8)
    [record] = lines(log)
    assert set(record) == REVIEW_KEYS | {"decision_type", "risk_level", "confidence"}
    assert {k: record[k] for k in ("type", "id", "kind", "mode", "model", "verdict", "confidence", "status",
                                   "error_code", "decision_type", "risk_level", "usage")} == {
        "type": "review", "id": result["meta"]["review_id"], "kind": "decision", "mode": "blind_first",
        "model": "scripted", "verdict": "MODIFY", "confidence": 0.8, "status": "ok", "error_code": None,
        "decision_type": "architecture", "risk_level": "high",
        "usage": {"prompt_tokens": 400, "completion_tokens": 100, "turns": 2}}   # numbers only
    assert result["meta"]["usage"]["cost_estimated"] is False and record["seconds"] == result["meta"]["seconds"]


def test_a_leak_is_refused_before_any_call_and_logged_as_its_code(tmp_path: Path, log: Path):
    leaky = fields(context=f"{S}-proposal " + fields()["proposed_solution"])
    result = review_decision_fields(leaky, model=script(tmp_path))   # no turns: a call would fail
    assert result["verdict"] == "INCONCLUSIVE" and result["error"]["code"] == "BLINDNESS_LEAK"
    assert result["meta"]["phases"] == 0 and result["meta"]["usage"] == {}
    [record] = lines(log)
    assert (record["status"], record["error_code"], record["verdict"]) == ("error", "BLINDNESS_LEAK", "INCONCLUSIVE")
    # proposal_first only warns, and is logged under its own mode
    answer = {**VERDICT_JSON, "verdict": "KEEP"}
    kept = review_decision_fields(leaky, mode="proposal_first",
                                          model=script(tmp_path, {"content": json.dumps(answer)}))
    assert kept["verdict"] == "KEEP" and kept["meta"]["blindness"]["warning"] is True
    assert [(r["mode"], r["verdict"]) for r in lines(log)] == [("blind_first", "INCONCLUSIVE"),
                                                               ("proposal_first", "KEEP")]


@pytest.mark.parametrize(("change", "kwargs", "message"), [
    ({"objective": 3}, {}, "the decision: invalid decision: objective: Input should be a valid string"),
    ({"plan": "x"}, {}, "the decision: invalid decision: plan: unknown field"),
    ({"review_mode": "blind_first"}, {"mode": "proposal_first"}, "review_mode 'blind_first' and mode "
                                                                 "'proposal_first' disagree: give one"),
    ({"review_mode": 1}, {}, "review_mode must be a string: blind_first or proposal_first"),
    ({"review_mode": "independent_only"}, {},
     "unknown decision mode 'independent_only'; known: blind_first, proposal_first"),
])
def test_bad_decision_fields_are_input_errors_before_any_call(tmp_path: Path, log: Path, change: dict[str, Any],
                                                              kwargs: dict[str, Any], message: str):
    with pytest.raises(InputError) as err:
        review_decision_fields(fields(**change), model=script(tmp_path), **kwargs)
    assert err.value.message.startswith(message), err.value.message
    assert not log.exists()


@pytest.mark.isolation
def test_a_change_review_is_logged_without_its_content(tmp_path: Path, log: Path):
    repo = git_repo(tmp_path / f"repo-{S}", [{f"src/{S}_mod.py": "VALUE = 1\n"},
                                             {f"src/{S}_mod.py": f"VALUE = 2  # {S}-diff\n"}])
    claim = {"claim": f"{S}-claim", "severity": "high", "location": f"src/{S}_mod.py:1", "evidence_refs": [],
             "result": "confirmed", "verdict": "MODIFY", "fix": f"{S}-fix"}
    model = script(tmp_path, {"content": json.dumps({"summary": f"{S}-summary", "claims": [claim]})})
    result = service.review_change(ChangeSource(repo=repo, base="HEAD~1", head="HEAD"),
                                   ReviewOptions(mode="proposal_first", model=model, task=f"{S}-task",
                                                 plan=f"{S}-plan"))
    assert result.verdict == "WARNING" and result.model_verdict == "MODIFY"   # no artifact: it cannot block
    [record] = lines(log)
    assert set(record) == REVIEW_KEYS | {"change_kind", "isolation"}
    assert {k: record[k] for k in ("id", "kind", "change_kind", "mode", "model", "verdict", "status", "isolation",
                                   "error_code")} == {
        "id": result.meta.review_id, "kind": "change", "change_kind": "git", "mode": "proposal_first",
        "model": "scripted", "verdict": "WARNING", "status": "ok", "isolation": result.meta.isolation,
        "error_code": None}


def test_the_config_key_wins_and_resolves_against_the_config_file(tmp_path: Path, log: Path):
    config = tmp_path / "conf" / "showcause.toml"
    config.parent.mkdir()
    config.write_text('[telemetry]\npath = "logs/t.jsonl"\n', encoding="utf-8")
    answer = {**VERDICT_JSON, "verdict": "KEEP"}
    review_decision_fields(fields(), mode="proposal_first", config=config,
                                   model=script(tmp_path, {"content": json.dumps(answer)}))
    assert not log.exists() and [r["verdict"] for r in lines(tmp_path / "conf" / "logs" / "t.jsonl")] == ["KEEP"]


def test_telemetry_is_off_unless_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    answer = {**VERDICT_JSON, "verdict": "KEEP"}
    result = review_decision_fields(fields(), mode="proposal_first",
                                            model=script(tmp_path, {"content": json.dumps(answer)}))
    assert result["verdict"] == "KEEP" and "telemetry_error" not in result["meta"]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("script-")) == []
    with pytest.raises(InputError, match="telemetry is off: set \\[telemetry\\] path"):
        record_outcome(result["meta"]["review_id"], True, False, True)


def test_a_log_that_cannot_be_written_never_changes_the_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "file").write_text("", encoding="utf-8")
    monkeypatch.setenv(ENV, str(tmp_path / "file" / "reviews.jsonl"))   # a file as its directory
    answer = {**VERDICT_JSON, "verdict": "KEEP"}
    result = review_decision_fields(fields(), mode="proposal_first",
                                            model=script(tmp_path, {"content": json.dumps(answer)}))
    assert result["verdict"] == "KEEP"
    assert result["meta"]["telemetry_error"].startswith(f"the review was not logged to {tmp_path}/file/reviews.jsonl")


def _review(log: Path, rid: str, verdict: str, tokens: int, cost: float | None, kind: str = "decision") -> None:
    append(log, {"type": "review", "id": rid, "kind": kind, "mode": "blind_first", "verdict": verdict,
                 "status": "ok", "usage": {"total_tokens": tokens}, "cost_usd": cost})


def test_outcomes_are_appended_and_summarised(tmp_path: Path, log: Path):
    _review(log, "r1", "MODIFY", 1000, 0.01)
    _review(log, "r2", "KEEP", 3000, 0.03)
    _review(log, "r3", "REPLACE", 2000, None, kind="change")
    _review(log, "r4", "KEEP", 500, 0.005)       # no outcome: in the counts, in neither cost
    assert record_outcome("r1", True, False, False)["review_was_useful"] is False
    record_outcome("r1", True, False, True)   # a correction: the latest outcome counts
    record_outcome("r2", True, True, False)   # let through, reworked later: a miss
    record_outcome("r3", True, False, True)
    with log.open("a", encoding="utf-8") as f:
        f.write('{"cut": \n[1]\n{"type": "outcome", "id": "gone", "accepted_review": true}\n')
    s = outcomes_summary()
    assert s == {
        "log": str(log), "reviews": 4, "by_kind": {"change": 1, "decision": 3}, "by_mode": {"blind_first": 4},
        "by_verdict": {"KEEP": 2, "MODIFY": 1, "REPLACE": 1}, "failed": 0, "with_outcome": 3, "accepted": 3,
        "rework_required": 1, "useful": 2, "prevented_bad_changes": 2, "missed": 1,
        "cost_per_useful_review": {"per": 2, "tokens": 3000.0, "usd": 0.02, "unpriced_reviews": 1},
        "cost_per_prevented_bad_change": {"per": 2, "tokens": 3000.0, "usd": 0.02, "unpriced_reviews": 1},
        "unreadable_lines": 2, "outcomes_without_review": 1}
    text = outcomes_text(s)
    assert "prevented bad changes: 2; missed (let through, rework later): 1" in text
    assert "cost per useful review: 3000 tokens, $0.0200 (1 review(s) of unknown price left out of $)" in text


@pytest.mark.parametrize(("args", "message"), [
    (("nope", True, False, True), "no review nope in the telemetry log"),
    (("r1", "yes", False, True), "accepted_review must be true or false, not 'yes'"),
    (("r1", True, 1, True), "later_rework_required must be true or false, not 1"),
    (("../etc", True, False, True), "review_id must be the id of a review"),
])
def test_bad_outcomes_are_input_errors_and_append_nothing(log: Path, args: tuple[Any, ...], message: str):
    _review(log, "r1", "KEEP", 10, 0.0)
    before = log.read_bytes()
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        record_outcome(*args)
    assert log.read_bytes() == before


def test_concurrent_appends_are_whole_lines(log: Path):
    code = ("import sys; from pathlib import Path; from showcause.telemetry import append; "
            "[append(Path(sys.argv[1]), {'type': 'review', 'id': f'{sys.argv[2]}-{i}', 'pad': 'x' * 3000}) "
            "for i in range(40)]")
    procs = [subprocess.Popen([str(Path(SHOWCAUSE).parent / "python"), "-c", code, str(log), f"p{n}"],
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")})
             for n in range(6)]
    assert [p.wait(timeout=60) for p in procs] == [0] * 6
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 240 and len({r["id"] for r in records}) == 240


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=60, env=env)


def test_cli_outcome_and_outcomes(tmp_path: Path, log: Path):
    env = {**os.environ}
    _review(log, "abc123", "MODIFY", 1200, 0.012)
    proc = cli("outcome", "abc123", "--accepted", "true", "--rework", "false", "--useful", "TRUE", env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) | {"timestamp": ""} == {"type": "outcome", "id": "abc123", "timestamp": "",
                                                           "accepted_review": True, "later_rework_required": False,
                                                           "review_was_useful": True}
    proc = cli("outcomes", "--json", env=env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["prevented_bad_changes"] == 1
    proc = cli("outcomes", env=env)
    assert proc.returncode == 0 and "cost per prevented bad change: 1200 tokens, $0.0120" in proc.stdout
    config = tmp_path / "c.toml"
    config.write_text(f'[telemetry]\npath = "{log}"\n', encoding="utf-8")
    off = {k: v for k, v in env.items() if k != ENV}
    assert cli("outcomes", "--config", str(config), "--json", env=off).returncode == 0
    for args, message in [
        (("outcome", "abc123", "--accepted", "maybe", "--rework", "false", "--useful", "true"),
         "--accepted takes true or false, not 'maybe'"),
        (("outcome", "zzz", "--accepted", "true", "--rework", "false", "--useful", "true"), "no review zzz"),
        (("outcomes",), "telemetry is off"),
        (("outcomes", "--config", str(tmp_path / "missing.toml")), "no such config file"),
    ]:
        proc = cli(*args, env=env if "maybe" in args or "zzz" in args else off)
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    proc = cli("outcome", "abc123", "--accepted", "true", env=env)   # a missing option: click's usage error
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
