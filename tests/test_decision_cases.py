"""Decision cases (`decision_cases/*.json`): our set, the rules `cases verify` enforces, and the input contract."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from showcause.bench.decision_casefile import (
    DecisionCase,
    case_problems,
    find_decision_cases,
    is_decision_case_dir,
    load_decision_case,
)
from showcause.core.decision import DECISION_VERDICTS, decision_from_fields, load_decision
from showcause.core.errors import InputError
from showcause.judges.blindness import check_blindness

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "decision_cases"
SHOWCAUSE = [str(Path(sys.executable).parent / "showcause")]
GOOD = "authz-cache-day-ttl"   # a flawed case every rule test starts from


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SHOWCAUSE, *args], capture_output=True, text=True, timeout=120)


def _ours() -> list[DecisionCase]:
    return [load_decision_case(p) for p in find_decision_cases(CASES)]


def _raw(name: str = GOOD) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _write(tmp_path: Path, data: dict[str, Any], name: str | None = None) -> Path:
    path = tmp_path / f"{name or data['id']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ---- our set ---------------------------------------------------------------------------------------------

def test_our_set_verifies_through_the_command_line():
    proc = _cli("cases", "verify", "decision_cases")
    n = len(find_decision_cases(CASES))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.endswith(f"{n} passed, 0 failed\n")
    assert "ok   payment-capture-no-retry                 correct (tempting)\n" in proc.stdout


def test_our_set_holds_the_counts_the_benchmark_needs():
    cases = _ours()
    flawed = [c for c in cases if c.flawed]
    correct = [c for c in cases if c.doc.truth.status == "correct"]
    adapted = [c for c in cases if c.doc.source.kind in ("postmortem", "incident", "reverted_pr")]
    assert len(cases) >= 30
    assert len(flawed) >= 13 and len(correct) >= 13
    assert sum(c.tempting for c in correct) >= 8
    assert len(adapted) >= 12
    assert all(c.doc.source.url.startswith("https://") for c in adapted)


def test_every_case_of_our_set_is_sound_and_blind():
    for case in _ours():
        assert case_problems(case) == [], case.id
        check = check_blindness(case.doc.input.proposed_solution, case.doc.input.blind_fields())
        assert check.score < 0.05, case.id   # far below the warning threshold: each proposal is its own text


@pytest.mark.parametrize("path", find_decision_cases(CASES), ids=lambda p: p.stem)
def test_a_cases_input_is_a_decision_as_review_reads_it(path: Path, tmp_path: Path):
    raw = json.loads(path.read_text(encoding="utf-8"))
    decision = decision_from_fields(raw["input"], path.name)
    assert decision == load_decision_case(path).doc.input
    (tmp_path / "d.json").write_text(json.dumps(raw["input"]), encoding="utf-8")
    assert load_decision(tmp_path / "d.json") == decision
    assert set(raw["truth"]["acceptable"]) <= set(DECISION_VERDICTS)


def test_review_decision_accepts_a_cases_input_as_is(tmp_path: Path):
    """The real command, blind_first, a scripted model: the input field of a case is a decision file."""
    (tmp_path / "d.json").write_text(json.dumps(_raw("serial-ledger-worker")["input"]), encoding="utf-8")
    position = {"main_assumptions": ["a"], "directions": [{"approach": "one ordered consumer"}],
                "failure_modes": ["b"], "preferred_solution": "one worker", "assumptions_to_test": []}
    verdict = {"verdict": "KEEP", "recommendation": "Keep it.", "critical_assumptions": [], "material_risks": [],
               "falsification_probe": {"description": "d", "expected_signal": "s"}, "confidence": 0.8}
    script = tmp_path / "m.json"
    script.write_text(json.dumps({"turns": [{"content": json.dumps(position)}, {"content": json.dumps(verdict)}]}),
                      encoding="utf-8")
    proc = _cli("review", "--decision", str(tmp_path / "d.json"), "--mode", "blind_first",
                "--model", f"scripted:{script}", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["verdict"] == "KEEP" and result["meta"]["blindness"]["warning"] is False


# ---- the rules, each with its message ---------------------------------------------------------------------

def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data[part]
    if value is _DROP:
        del data[last]
    else:
        data[last] = value


_DROP = object()

SCHEMA = [
    ("format", 2, "format: Input should be 1"),
    ("extra", "x", "extra: unknown field"),
    ("truth.notes", "x", "truth.notes: unknown field"),
    ("input.review_mode", "blind_first", "input.review_mode: unknown field"),
    ("input.objective", " ", "input.objective: must not be blank"),
    ("input.risk_level", "severe", "input.risk_level: Input should be 'low', 'medium', 'high' or 'critical'"),
    ("input.evidence", "one fact", "input.evidence: Input should be a valid list"),
    ("source.kind", "blog", "source.kind: Input should be 'real_pr', 'reverted_pr', 'postmortem', 'issue', "
                            "'incident' or 'synthetic'"),
    ("truth.status", "flawed", "truth.status: Input should be 'correct', 'materially_flawed', "
                               "'fundamentally_flawed' or 'insufficient_information'"),
    ("truth.acceptable", [], "truth.acceptable: List should have at least 1 item after validation, not 0"),
    ("truth.acceptable", ["BLOCK"], "truth.acceptable.0: Input should be 'KEEP', 'MODIFY', 'REPLACE' or "
                                    "'INSUFFICIENT_EVIDENCE'"),
    ("diagnostics", _DROP, "diagnostics: Field required"),
    ("diagnostics.keywords", [1], "diagnostics.keywords.0: Input should be a valid string"),
]


@pytest.mark.parametrize(("field", "value", "message"), SCHEMA,
                         ids=[f"{f}=<dropped>" if v is _DROP else f"{f}={v!r}" for f, v, _ in SCHEMA])
def test_the_schema_is_strict(field: str, value: Any, message: str, tmp_path: Path):
    data = _raw()
    _set(data, field, value)
    with pytest.raises(InputError) as err:
        load_decision_case(_write(tmp_path, data))
    assert err.value.message == f"{GOOD}.json: {message}"


def test_a_case_without_format_is_version_1(tmp_path: Path):
    data = _raw()
    del data["format"]
    case = load_decision_case(_write(tmp_path, data))
    assert case.doc.format == 1 and case_problems(case) == []


def _correct(**truth: Any) -> dict[str, Any]:
    data = _raw("sqlite-internal-tool")
    data["truth"].update(truth)
    return data


def _flawed(**truth: Any) -> dict[str, Any]:
    data = _raw()
    data["truth"].update(truth)
    return data


def _leaky() -> dict[str, Any]:
    data = _raw()
    data["input"]["context"] += " " + data["input"]["proposed_solution"][:60]
    return data


RULES = [
    (_correct(acceptable=["KEEP", "MODIFY"]), ["truth.acceptable: a correct case accepts only KEEP"]),
    (_correct(acceptable=["MODIFY"]), ["truth.acceptable: a correct case accepts only KEEP"]),
    (_flawed(acceptable=["MODIFY", "KEEP"]), ["truth.acceptable: a materially_flawed case never accepts KEEP"]),
    (_flawed(status="fundamentally_flawed", acceptable=["KEEP"]),
     ["truth.acceptable: a fundamentally_flawed case never accepts KEEP"]),
    (_flawed(acceptable=["MODIFY", "MODIFY"]), ["truth.acceptable: a verdict is listed twice"]),
    (_flawed(status="insufficient_information", acceptable=["MODIFY"]),
     ["truth.acceptable: an insufficient_information case expects INSUFFICIENT_EVIDENCE first"]),
    (_flawed(issue=""), ["truth.issue: a materially_flawed case says what is wrong"]),
    (_flawed(required_observations=[]),
     ["truth.required_observations: a materially_flawed case lists what a reviewer must notice"]),
    (_flawed(tempting="looks fine"), ["truth.tempting: only a correct case is tempting"]),
    ({**_raw("waf-rule-global-push"), "source": {"kind": "postmortem", "url": "", "note": ""}},
     ["source.url: a postmortem case names its public source (http or https)"]),
    ({**_raw(), "diagnostics": {"keywords": ["revok(e"]}},
     ["diagnostics.keywords: 'revok(e' is not a regular expression (missing ), unterminated subpattern at "
      "position 5)"]),
]


@pytest.mark.parametrize(("data", "problems"), RULES, ids=[p[0].split(":")[1][:40] for _, p in RULES])
def test_each_rule_refuses_a_bad_case(data: dict[str, Any], problems: list[str], tmp_path: Path):
    assert case_problems(load_decision_case(_write(tmp_path, copy.deepcopy(data)))) == problems


def test_a_proposal_leaking_into_the_problem_fields_is_refused(tmp_path: Path):
    case = load_decision_case(_write(tmp_path, _leaky()))
    [problem] = case_problems(case)
    check = check_blindness(case.doc.input.proposed_solution, case.doc.input.blind_fields())
    assert 0.15 <= check.score < 0.5   # a warning, not yet a leak: verify is stricter than a review
    assert problem == (f"input: {check.score:.0%} of the proposal's 5-word sequences ({check.shared} of "
                       f"{check.total}) appear in the fields the blind phase reads (must stay below the warning "
                       f"threshold, 15%)")


def test_the_id_is_the_file_name(tmp_path: Path):
    assert case_problems(load_decision_case(_write(tmp_path, _raw(), "other"))) == [
        f"id {GOOD!r} does not match the file name 'other.json'"]
    data = {**_raw(), "id": "Bad_Id"}
    assert case_problems(load_decision_case(_write(tmp_path, data))) == [
        "id 'Bad_Id': lower-case letters, digits and '-', at most 80 characters"]


def test_files_that_are_not_cases(tmp_path: Path):
    (tmp_path / "a.json").write_text("[1]", encoding="utf-8")
    (tmp_path / "b.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match=r"^a\.json: a decision case is a JSON object$"):
        load_decision_case(tmp_path / "a.json")
    (tmp_path / "c.json").write_text("[" * 100 + "]" * 100, encoding="utf-8")
    (tmp_path / "d.json").write_bytes(b'{"id": "\xff"}')
    for name in ("b", "c", "d"):   # not JSON, nested beyond the cap, not UTF-8: one line each, no traceback
        with pytest.raises(InputError, match=rf"^{name}\.json: "):
            load_decision_case(tmp_path / f"{name}.json")
    proc = _cli("cases", "verify", str(tmp_path))
    assert proc.returncode == 2 and proc.stdout.endswith("0 passed, 4 failed\n") and proc.stderr == ""


# ---- the command line: detection and exit codes -----------------------------------------------------------

def test_a_decision_case_folder_is_told_from_a_repo_case_folder(tmp_path: Path):
    assert is_decision_case_dir(CASES) and is_decision_case_dir(CASES / f"{GOOD}.json")
    assert not is_decision_case_dir(ROOT / "repo_cases") and not is_decision_case_dir(ROOT / "examples" / "demo-case")
    assert not is_decision_case_dir(tmp_path)   # empty: neither kind


def test_verify_prints_every_problem_and_exits_2(tmp_path: Path):
    _write(tmp_path, _raw())
    _write(tmp_path, _flawed(acceptable=["KEEP"], issue=""), "second")
    (tmp_path / "third.json").write_text(json.dumps({**_raw(), "id": "third", "extra": 1}), encoding="utf-8")
    proc = _cli("cases", "verify", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stdout.splitlines() == [
        f"ok   {GOOD:<40} materially_flawed",
        f"FAIL {'second':<40} id {GOOD!r} does not match the file name 'second.json'; truth.acceptable: a "
        "materially_flawed case never accepts KEEP; truth.issue: a materially_flawed case says what is wrong",
        f"FAIL {'third':<40} third.json: extra: unknown field",
        "1 passed, 2 failed"]
    one = _cli("cases", "verify", str(tmp_path / f"{GOOD}.json"))
    assert one.returncode == 0 and one.stdout.endswith("1 passed, 0 failed\n")
