"""The probes' floor under a model's answer, and the claim cap that keeps the most severe and says when it cut.

Model modes are driven by `scripted:` conversations on bundled repo cases: `py-cron-step-values` (its change
breaks tests/test_fields.py::test_weekdays_range, a real test regression) and `py-token-bucket-refill-fix`
(a correct change the probes find nothing in).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders import make_case
from showcause.core.artifacts import Artifact
from showcause.core.claims import Claim
from showcause.core.records import GatedClaim
from showcause.core.result import ReviewResult, exit_code
from showcause.evidence.settle import keep_ranked, with_floor
from showcause.judges.base import ReviewRequest
from showcause.render import render
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]
CRON = ROOT / "repo_cases" / "py-cron-step-values"
BUCKET = ROOT / "repo_cases" / "py-token-bucket-refill-fix"
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
TEST_ID = "tests/test_fields.py::test_weekdays_range"
PROBE_TEXT = f"The change breaks {TEST_ID}: failing on head, passing on base (or new and failing)."
KEEP_ANSWER = {"summary": "The step parser is fine.", "claims": []}
REGRESSION = {"claim": f"{TEST_ID} fails: 'mon-fri' no longer includes Friday", "severity": "high",
              "evidence_refs": ["T1", TEST_ID], "result": "confirmed", "verdict": "MODIFY"}


def _script(tmp_path: Path, *turns: dict[str, Any]) -> str:
    path = tmp_path / f"script-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps({"turns": list(turns)}), encoding="utf-8")
    return f"scripted:{path}"


def _answer(answer: dict[str, Any]) -> dict[str, Any]:
    return {"content": json.dumps(answer)}


def _review(case: Path, model: str, mode: str = "evidence_gate") -> ReviewResult:
    with open_snapshot(case=case) as snap:
        return run_review(tool_context(snap), mode, ReviewRequest(task="t", plan="p", model=model))


def test_a_model_answering_keep_still_blocks_on_a_validated_probe_regression(tmp_path: Path):
    model = _script(tmp_path, _answer(KEEP_ANSWER))
    proc = subprocess.run([SHOWCAUSE, "review", "--case", str(CRON), "--model", model, "--format", "json"],
                          capture_output=True, text=True, timeout=300, env={**os.environ})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["verdict"], doc["model_verdict"], doc["meta"]["mode"]) == ("MODIFY", "KEEP", "evidence_gate")
    [claim] = doc["claims"]
    assert (claim["source"], claim["verdict"], claim["gate"]["status"]) == ("probe", "MODIFY", "validated")
    assert claim["claim"] == PROBE_TEXT and claim["evidence_refs"] == ["T1", TEST_ID]
    assert [(a["type"], a["file"], a["tool_call"]) for a in claim["gate"]["artifacts"]] == [
        ("test_regression", "tests/test_fields.py", "T1")]
    assert doc["meta"]["claims_dropped"] == 0


def test_the_floor_holds_in_blind_first_too(tmp_path: Path):
    model = _script(tmp_path, _answer({"summary": "I would keep ranges inclusive."}), _answer(KEEP_ANSWER))
    result = _review(CRON, model, "blind_first")
    assert (result.verdict, result.model_verdict, exit_code(result)) == ("MODIFY", "KEEP", 1)
    assert [(c.source, c.status, c.claim.claim) for c in result.claims] == [("probe", "validated", PROBE_TEXT)]
    # The text and markdown renders say where the claim came from.
    assert f"1. MODIFY (validated, from the probes) [tests/test_fields.py]: {PROBE_TEXT}" in \
        render(result, "text").splitlines()
    assert "   _validated — blocks_; found by the mechanical probes" in render(result, "markdown").splitlines()


@pytest.mark.parametrize("own_run", [False, True], ids=["cites-the-probe", "cites-its-own-run"])
def test_a_model_citing_the_same_regression_gets_no_duplicate(tmp_path: Path, own_run: bool):
    refs = ["T3", TEST_ID] if own_run else ["T1", TEST_ID]
    turns = [{"tool_calls": [{"name": "run_test", "arguments": {"test": "tests/test_fields.py"}}]}] if own_run else []
    model = _script(tmp_path, *turns, _answer({"summary": "ranges lose their end", "claims": [
        {**REGRESSION, "evidence_refs": refs}]}))
    result = _review(CRON, model)
    assert (result.verdict, result.model_verdict, exit_code(result)) == ("MODIFY", "MODIFY", 1)
    [claim] = result.claims
    assert (claim.source, claim.status, claim.claim.claim) == ("model", "validated", REGRESSION["claim"])
    assert [(a.type, a.subject, a.tool_call) for a in claim.artifacts] == [
        ("test_regression", TEST_ID, refs[0])]
    assert result.meta.claims_dropped == 0


def _warning(text: str, severity: str) -> dict[str, Any]:
    return {"claim": text, "severity": severity, "result": "unable_to_verify", "verdict": "WARNING"}


SEVEN = [
    _warning("parse_field may be slow for long lists", "medium"),
    {"claim": "the step syntax is risky", "severity": "high", "evidence_refs": [], "result": "confirmed",
     "verdict": "MODIFY"},                                                              # downgraded: cites nothing
    _warning("naming of step_values is unclear", "low"),
    _warning("schedules may skip their last run", "critical"),
    _warning("the CLI help does not mention steps", "medium"),
    REGRESSION,                                                                          # the one that validates
    _warning("a docstring is out of date", "low"),
]


def test_seven_claims_keep_the_validated_one_and_report_the_two_dropped(tmp_path: Path):
    result = _review(CRON, _script(tmp_path, _answer({"summary": "ranges lose their end", "claims": SEVEN})))
    assert (result.verdict, result.model_verdict, exit_code(result)) == ("MODIFY", "MODIFY", 1)
    # Validated first, then critical > high > medium; the two low ones are left out; the order is the model's.
    assert [(c.claim.claim, c.status) for c in result.claims] == [
        ("parse_field may be slow for long lists", "unconfirmed"), ("the step syntax is risky", "downgraded"),
        ("schedules may skip their last run", "unconfirmed"), ("the CLI help does not mention steps", "unconfirmed"),
        (REGRESSION["claim"], "validated")]
    assert all(c.source == "model" for c in result.claims)   # the probe's claim rests on the same regression
    doc = result.to_json()
    assert doc["meta"]["claims_dropped"] == 2 and len(doc["claims"]) == 5
    sentence = "2 more claims beyond the cap of 5 were not kept."
    assert render(result, "text").splitlines()[-1] == sentence
    assert f"_{sentence}_" in render(result, "markdown").splitlines()


def test_a_correct_change_answered_keep_stays_keep(tmp_path: Path):
    result = _review(BUCKET, _script(tmp_path, _answer(KEEP_ANSWER)))
    assert (result.verdict, result.model_verdict, exit_code(result)) == ("KEEP", "KEEP", 0)
    assert result.claims == [] and result.meta.claims_dropped == 0
    assert [c.tool for c in result.tool_calls] == ["run_test", "typecheck"]
    assert all(c.artifacts == [] for c in result.tool_calls)
    assert render(result, "markdown") == "✅ **showcause: KEEP** — nothing the change introduced blocks it " \
                                         "(evidence_gate).\n"


def test_the_mechanical_judge_keeps_five_and_reports_the_rest(tmp_path: Path):
    names = [f"on_{n}_event" for n in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")]
    base = {"src/a.py": "".join(f"def {n}() -> int:\n    return 1\n\n\n" for n in names),
            "registry.json": json.dumps({"handlers": names}) + "\n"}
    case = make_case(tmp_path / "six", base, {"src/a.py": "def omega() -> int:\n    return 2\n"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert (result.verdict, exit_code(result), result.meta.claims_dropped) == ("MODIFY", 1, 1)
    assert [c.claim.claim for c in result.claims] == [
        f"`{n}` is retired by the change but still used at registry.json:1." for n in sorted(names)[:5]]
    assert all((c.status, c.source) == ("validated", "probe") for c in result.claims)
    assert render(result, "text").splitlines()[-1] == "1 more claim beyond the cap of 5 was not kept."
    # Every format says it: GitHub as a notice, SARIF as a run-level note.
    assert "::notice title=showcause::1 more claim beyond the cap of 5 was not kept." in \
        render(result, "github").splitlines()
    sarif = json.loads(render(result, "sarif"))
    assert {"level": "note", "message": {"text": "1 more claim beyond the cap of 5 was not kept."}} in \
        sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    # The mechanical judge's claims are all the probes': the renders do not repeat it on each.
    assert "from the probes" not in render(result, "text") and "found by" not in render(result, "markdown")


# ---- the rules on their own ------------------------------------------------------------------------------

def _gated(text: str, status: str, verdict: str, severity: str = "medium", source: str = "model",
           subject: str = "") -> GatedClaim:
    arts = [Artifact("test_regression", "tests/t.py", None, subject, tool_call="T1", subject=subject)] if subject \
        else []
    claim = Claim(claim=text, severity=severity, verdict=verdict if status != "unconfirmed" else "WARNING")  # type: ignore[arg-type]
    return GatedClaim(claim, verdict, status, arts, source=source)


def test_the_cap_ranks_validated_then_verdict_then_severity_and_keeps_the_order():
    claims = [_gated("w-crit", "unconfirmed", "WARNING", "critical"), _gated("w-low", "unconfirmed", "WARNING", "low"),
              _gated("m-low", "validated", "MODIFY", "low", subject="tests/t.py::a"),
              _gated("d-high", "downgraded", "WARNING", "high"), _gated("w-med", "unconfirmed", "WARNING"),
              _gated("r-low", "validated", "REPLACE", "low", "probe", subject="tests/t.py::b"),
              _gated("w-med2", "unconfirmed", "WARNING")]
    kept, dropped = keep_ranked(claims, cap=4)
    assert [c.claim.claim for c in kept] == ["w-crit", "m-low", "d-high", "r-low"] and dropped == 3
    kept, dropped = keep_ranked(claims, cap=1)
    assert [c.claim.claim for c in kept] == ["r-low"] and dropped == 6     # the cap never lowers the verdict
    assert keep_ranked(claims[:2]) == (claims[:2], 0)


def test_a_probe_claim_is_left_out_only_when_a_validated_model_claim_covers_all_its_artifacts():
    model = [_gated("a fails", "validated", "MODIFY", subject="tests/t.py::a"),
             _gated("b fails", "downgraded", "WARNING")]
    covered = _gated("probe a", "validated", "MODIFY", source="probe", subject="tests/t.py::a")
    other = _gated("probe b", "validated", "MODIFY", source="probe", subject="tests/t.py::b")
    both = _gated("probe a+b", "validated", "MODIFY", source="probe", subject="tests/t.py::a")
    both.artifacts = [*covered.artifacts, *other.artifacts]
    assert with_floor(model, [covered, other, both]) == [*model, other, both]
    assert with_floor(model[1:], [covered]) == [model[1], covered]    # a downgraded claim covers nothing


@pytest.mark.parametrize("mode", ["evidence_gate", "blind_first"])
def test_a_model_that_fails_after_the_probes_leaves_their_verdict_standing(tmp_path: Path, mode: str):
    """A model whose answer never parses: the probes' validated regression still blocks (exit 1), the result
    says the model failed, and a correct change with the same failing model stays INCONCLUSIVE (exit 3)."""
    garbage = [{"content": "no JSON here"}] * 6
    first = [_answer({"summary": "I would keep ranges inclusive."})] if mode == "blind_first" else []
    result = _review(CRON, _script(tmp_path, *first, *garbage), mode)
    assert (result.verdict, result.model_verdict, exit_code(result)) == ("MODIFY", "INCONCLUSIVE", 1)
    assert [(c.source, c.status, c.claim.claim) for c in result.claims] == [("probe", "validated", PROBE_TEXT)]
    assert result.meta.model_error["code"] == "MALFORMED_RESPONSE"
    assert result.summary.startswith("The model's answer failed (MALFORMED_RESPONSE: ")
    clean = _review(BUCKET, _script(tmp_path, *first, *garbage), mode)
    assert (clean.verdict, exit_code(clean), clean.error and clean.error["code"]) == (
        "INCONCLUSIVE", 3, "MALFORMED_RESPONSE")
