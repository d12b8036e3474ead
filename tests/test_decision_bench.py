"""The decision benchmark end to end: decision cases through `showcause bench` against loopback OpenAI and
Anthropic servers that answer per mode (decision_bench_servers.py), with exact expected metrics, Wilson
intervals, rule labels, the recorded mode order, the review sheet round trip, compare, --max-cost and
--resume; and the sentinels: nothing of truth, diagnostics or source reaches a provider, the blind phase
never sees the proposal and the comparer never sees the problem."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from decision_bench_servers import POSITION_TAG, VERDICTS, DecisionAnthropic, DecisionOpenAI, request_text
from showcause.bench.decision_bench import mode_order
from showcause.bench.decision_casefile import load_sound_case
from showcause.bench.rules import REPO_METRICS, Labels, answer_questions, default_rules_path, label, load_rules
from showcause.bench.runner import BenchConfig, run_bench
from showcause.core.errors import InputError

CASES = Path(__file__).with_name("decision_cases_small")
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
SENTINEL = "TRUTH-SENTINEL-5d1e"
MODES = ("blind_first", "proposal_first", "proposal_first_2pass", "independent_only", "decision_judge")
OA, AN = "openai:test-model", "anthropic:test-model"


def sc(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=300, env={**os.environ, **env})


def rate(m: dict[str, Any], key: str) -> tuple[int, int, int, list[float]]:
    r = m[key]
    return r["k"], r["n"], r["failed"], r["ci95"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run over both wire formats: 5 cases x 5 modes x 2 models x 2 runs, one review at a time."""
    out = tmp_path_factory.mktemp("dbench") / "out"
    mp = pytest.MonkeyPatch()
    with DecisionOpenAI() as oa, DecisionAnthropic() as an:
        mp.setenv("OPENAI_API_KEY", "sk-test-dbench")
        mp.setenv("OPENAI_BASE_URL", oa.url)
        mp.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dbench")
        mp.setenv("ANTHROPIC_BASE_URL", an.url)
        try:
            results = run_bench(BenchConfig(CASES, MODES, 2, 1, out, models=(OA, AN)))
        finally:
            mp.undo()
        return {"results": results, "out": out, "servers": {OA: oa, AN: an}}


def test_every_arm_has_the_exact_metrics_and_intervals(bench: dict[str, Any]):
    results = bench["results"]
    assert results["kind"] == "decision" and results["expected_records"] == 100 and results["not_run"] == []
    assert list(results["metrics"]) == [f"{mode} @ {m}" for mode in MODES for m in (OA, AN)]   # not shuffled
    assert {b["tokens"] for b in results["mode_budgets"].values()} == {60_000}   # one configuration
    for model in (OA, AN):
        m = {mode: results["metrics"][f"{mode} @ {model}"] for mode in MODES}
        bf, pf, p2, io_, dj = (m[k] for k in MODES)
        assert rate(bf, "decision_accuracy") == (10, 10, 0, [0.7225, 1.0])
        assert rate(pf, "decision_accuracy") == (6, 10, 0, [0.3127, 0.8318])
        assert rate(p2, "decision_accuracy") == (6, 10, 0, [0.3127, 0.8318])
        assert rate(io_, "decision_accuracy") == (8, 8, 2, [0.6756, 1.0])
        assert rate(io_, "strict_accuracy")[:2] == (8, 10) and rate(bf, "strict_accuracy")[:2] == (10, 10)
        assert [rate(x, "correct_keep")[:2] for x in (bf, pf, p2, io_, dj)] == [(4, 4), (2, 4), (2, 4), (4, 4), (4, 4)]
        assert [rate(x, "defect_detection")[:3] for x in (bf, pf, p2, io_, dj)] == [
            (4, 4, 0), (4, 4, 0), (2, 4, 0), (2, 2, 2), (2, 4, 0)]
        assert [rate(x, "exact_verdict")[:2] for x in (bf, pf, p2, io_, dj)] == [
            (10, 10), (4, 10), (6, 10), (8, 8), (4, 10)]
        assert [rate(x, "false_intervention")[:2] for x in (bf, pf, p2, io_, dj)] == [
            (0, 4), (2, 4), (2, 4), (0, 4), (0, 4)]
        assert rate(p2, "false_intervention")[3] == [0.15, 0.85]
        assert [rate(x, "severe_false_intervention")[0] for x in (bf, pf, p2, io_, dj)] == [0, 0, 2, 0, 0]
        assert [rate(x, "insufficient_evidence")[:2] for x in (bf, pf, p2, io_, dj)] == [
            (2, 10), (0, 10), (2, 10), (2, 8), (0, 10)]
        assert rate(bf, "keyword_hit_rate")[:2] == (2, 4) and rate(pf, "keyword_hit_rate")[:2] == (0, 4)
        assert io_["failures_by_code"] == {"MALFORMED_RESPONSE": 2} and bf["failures_by_code"] == {}
        # 120 tokens a call: two calls for the two-phase arms, one for the others.
        assert [(x["tokens"]["mean"], x["tokens"]["median"], x["relative_tokens"]) for x in (bf, pf, p2, io_, dj)] \
            == [(240.0, 240.0, 2.0), (120.0, 120.0, 1.0), (240.0, 240.0, 2.0), (240.0, 240.0, 2.0),
                (120.0, 120.0, 1.0)]
        assert all(x["seconds"]["median"] is not None for x in m.values())


def test_the_pre_registered_questions_are_labelled(bench: dict[str, Any]):
    results = bench["results"]
    rules = default_rules_path()
    assert results["rules"]["sha256"] == __import__("hashlib").sha256(rules.read_bytes()).hexdigest()
    got = {(q["id"], q["model"]): (q["advantage"], q["ci95"], q["cases"], q["label"]) for q in results["questions"]}
    for model in (OA, AN):
        assert got[("Q1", model)] == (0.4, [0.0, 0.8], 5, "weak signal")
        assert got[("Q2", model)] == (0.4, [0.0, 0.8], 5, "weak signal")
        assert got[("Q3", model)] == (0.0, [0.0, 0.0], 4, "no observed advantage")
        assert got[("Q4", model)] == (0.5, [0.0, 1.0], 2, "weak signal with defect-detection loss")
    q4 = next(q for q in results["questions"] if q["id"] == "Q4")
    assert (q4["guard"], q4["guard_difference"], q4["resamples"], q4["seed"]) == ("defect_detection", -0.5, 5000,
                                                                                  20260316)
    assert [q["main"] for q in results["questions"][:4]] == [False, True, False, False]


def test_the_mode_order_is_shuffled_per_case_and_run_and_recorded(bench: dict[str, Any]):
    results = bench["results"]
    orders = results["mode_orders"]
    assert len(orders) == 10 and len({tuple(o) for o in orders.values()}) > 1
    for key, order in orders.items():
        case, run = key.split("#")
        assert order == list(mode_order(MODES, case, int(run), 42)) and sorted(order) == sorted(MODES)
    # One review at a time: each server saw the modes in exactly the recorded order, case by case.
    calls = {"blind_first": ["blind", "blind_first"], "proposal_first": ["proposal_first"],
             "proposal_first_2pass": ["proposal_first", "proposal_first_2pass"],
             "decision_judge": ["decision_judge"]}
    expected = []
    for run in (1, 2):
        for case in sorted(p.stem for p in CASES.glob("*.json")):
            for mode in orders[f"{case}#{run}"]:
                expected += calls.get(mode) or (["blind", "independent_only"] +
                                                (["independent_only"] if VERDICTS[mode][case] is None else []))
    for server in bench["servers"].values():
        assert server.modes_seen() == expected


def test_no_truth_reaches_a_provider_and_each_phase_sees_only_its_part(bench: dict[str, Any]):
    cases = [load_sound_case(p).doc for p in sorted(CASES.glob("*.json"))]
    blind_texts = [t for c in cases for t in (c.input.objective, *c.input.constraints, c.input.context,
                                              c.input.environment, *c.input.evidence)]
    seen = 0
    for server in bench["servers"].values():
        for post in server.posts():
            raw = post.raw.decode()
            assert SENTINEL not in raw and "required_observations" not in raw and "diagnostics" not in raw
            text = request_text(post.body)
            if "This is the first step of a blind review" in text and "Here is the proposed" not in text:
                assert "PROPOSAL-" not in raw and "proposed_solution" not in raw   # the blind phase
                seen += 1
            if "Another reviewer, who had not seen the proposal" in text:   # the fresh comparer
                assert POSITION_TAG in text and "PROPOSAL-" in text
                assert not any(t in raw for t in blind_texts) and "first step of a blind review" not in text
                seen += 1
    assert seen == 2 * (20 + 12)   # per model: 20 blind phases (two arms), 12 comparer calls (4 of them repairs)


def test_the_review_sheet_round_trip_and_compare(bench: dict[str, Any], tmp_path: Path):
    out = bench["out"]
    rows = list(csv.DictReader(io.StringIO((out / "review-sheet.csv").read_text())))
    key = json.loads((out / "sheet-key.json").read_text())
    assert len(rows) == bench["results"]["review_sheet_rows"] == 52 and all(r["hit"] == "" for r in rows)
    assert {r["case"] for r in rows} == {"c-ack-before-store", "d-retry-everything"}
    assert not any(mode in r["item"] for r in rows for mode in MODES)   # the arm is behind the item id
    for r in rows:
        arm = key["items"][r["item"]]
        assert r["recommendation"].startswith(arm["mode"])   # what that arm wrote
        r["hit"] = {"blind_first": "1", "decision_judge": ""}.get(arm["mode"], "0")
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    proc = sc("bench", "ingest", str(filled), str(out / "sheet-key.json"), env={})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert f"| blind_first @ {OA} | 6/6 | 100% [61-100] | 0 |" in lines
    assert f"| proposal_first @ {AN} | 0/6 | 0% [0-39] | 0 |" in lines
    assert f"| independent_only @ {OA} | 0/2 | 0% [0-66] | 0 |" in lines
    assert f"| decision_judge @ {OA} | 0/0 | n/a | 6 |" in lines
    rows[0]["hit"] = "maybe"
    with filled.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    bad = sc("bench", "ingest", str(filled), str(out / "sheet-key.json"), env={})
    assert bad.returncode == 2 and "hit must be 1 or 0 (or empty), not 'maybe'" in bad.stderr
    other = tmp_path / "other"
    shutil.copytree(out, other)
    proc = sc("bench", "compare", str(out), str(other), env={})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(f"| {out} | blind_first @ {OA} | 100% [72-100] (10/10) |") == 1
    assert f"| {other} | Q4 | {AN} | decision_judge vs proposal_first (false_intervention) | +50 pp [+0, +100], 2 " \
           "cases: weak signal with defect-detection loss |" in proc.stdout
    assert "winner" not in proc.stdout.lower() and "best" not in proc.stdout.lower()
    not_decision = sc("bench", "compare", str(tmp_path), env={})
    assert not_decision.returncode == 2 and "no results.json (not a bench output folder)" in not_decision.stderr


def test_max_cost_stops_and_resume_finishes_with_the_same_numbers(bench: dict[str, Any], tmp_path: Path):
    out = tmp_path / "o"
    args = ("bench", str(CASES), "--modes", ",".join(MODES), "--model", OA, "--runs", "2", "--concurrency", "1",
            "--unpriced-reserve", "0.05", "--out", str(out))
    with DecisionOpenAI() as server:
        server.cost = 0.01
        env = {"OPENAI_API_KEY": "sk-test-dbench", "OPENAI_BASE_URL": server.url}
        stopped = sc(*args, "--max-cost", "0.2", env=env)
        assert stopped.returncode == 3, stopped.stderr
        assert "stopped at --max-cost $0.2" in stopped.stderr
        first = json.loads((out / "results.json").read_text())
        done = len(first["records"])
        assert 0 < done < 50 and done + len(first["not_run"]) == 50
        assert first["spend"]["cost_usd"] <= 0.2
        calls_before = len(server.posts())
        resumed = sc(*args, "--resume", env=env)
        assert resumed.returncode == 0, resumed.stderr
        second = json.loads((out / "results.json").read_text())
        # Only what had not run ran: every call of the whole bench was made once over the two sessions.
        assert len(server.posts()) == 82 and calls_before < 82
        # The recorded orders come from the seed: another seed cannot be resumed into.
        reseeded = sc(*args, "--resume", "--seed", "7", env=env)
        assert reseeded.returncode == 2 and "--resume refused: mode_order_seed changed" in reseeded.stderr
    assert second["not_run"] == [] and len(second["records"]) == 50
    full = bench["results"]["metrics"]
    for mode in MODES:
        a, b = dict(full[f"{mode} @ {OA}"]), dict(second["metrics"][f"{mode} @ {OA}"])
        for m in (a, b):
            m.pop("seconds")
            m.pop("cost_usd")
        assert a == b
    assert second["spend"]["cost_usd"] == pytest.approx(0.82)
    assert "Q2 blind_first vs proposal_first_2pass (decision_accuracy" in resumed.stdout
    assert (out / "report.md").read_text().startswith("# Decision benchmark report")


def test_rules_files_labels_and_a_repo_bench_question(tmp_path: Path):
    t = Labels(clear_min=0.10, clear_lo=0.0, weak_min=0.05, weak_lo=-0.05, none_max=0.0)
    assert [label(d, lo, t) for d, lo in ((0.12, 0.01), (0.12, 0.0), (0.06, -0.04), (0.06, -0.06), (0.0, -0.3),
                                          (-0.2, -0.5), (0.03, 0.01), (None, None))] == [
        "clear signal", "weak signal", "weak signal", "inconclusive", "no observed advantage",
        "no observed advantage", "inconclusive", "inconclusive"]
    text = default_rules_path().read_text().replace("clear_lo = 0.0", "clear_lo = -0.01")
    (tmp_path / "r.toml").write_text(text)
    rules = load_rules(tmp_path / "r.toml", REPO_METRICS | {"decision_accuracy": REPO_METRICS["recall"],
                                                           "defect_detection": REPO_METRICS["recall"]})
    assert rules.labels.clear_lo == -0.01 and len(rules.sha256) == 64
    (tmp_path / "bad.toml").write_text(text.replace('metric = "false_intervention"', 'metric = "vibes"'))
    with pytest.raises(InputError, match="question Q4 measures 'vibes'"):
        load_rules(tmp_path / "bad.toml", REPO_METRICS | {"decision_accuracy": REPO_METRICS["recall"],
                                                         "defect_detection": REPO_METRICS["recall"]})
    with pytest.raises(InputError, match="decision_accuracy"):   # a repo bench measures no decision accuracy
        load_rules(default_rules_path(), REPO_METRICS)
    # A repo bench's own question on its records (--rules FILE): false interventions, lower is better.
    head = default_rules_path().read_text().split("[[questions]]")[0]
    (tmp_path / "repo.toml").write_text(head + '[[questions]]\nid = "R1"\na = "evidence_gate"\nb = "mechanical"\n'
                                        'metric = "false_intervention"\nbetter = "lower"\n')
    repo_rules = load_rules(tmp_path / "repo.toml", REPO_METRICS)
    (tmp_path / "self.toml").write_text((tmp_path / "repo.toml").read_text().replace('"evidence_gate"', '"mechanical"'))
    with pytest.raises(InputError, match="question R1 compares 'mechanical' with itself"):
        load_rules(tmp_path / "self.toml", REPO_METRICS)
    truth = {f"c{i}": {"status": "correct", "acceptable": ["KEEP"]} for i in range(4)}
    records = [{"case": f"c{i}", "mode": mode, "model": None, "run": 1, "status": "ok",
                "verdict": "MODIFY" if mode == "mechanical" and i < 2 else "KEEP"} for i in range(4)
               for mode in ("mechanical", "evidence_gate")]
    (q,) = answer_questions(repo_rules, records, truth, [None], REPO_METRICS)
    assert (q["advantage"], q["cases"], q["label"]) == (0.5, 4, "weak signal")


def test_bad_decision_cases_and_bench_only_modes_are_refused(tmp_path: Path):
    doc = json.loads((CASES / "a-keep-sqlite.json").read_text())
    for change, message in (({"truth": {**doc["truth"], "acceptable": ["KEEP", "MODIFY"]}}, "accepts only KEEP"),
                            ({"truth": {**doc["truth"], "status": "materially_flawed"}}, "never accepts KEEP"),
                            ({"id": "other"}, "does not match the file name"), ({"extra": 1}, "extra: unknown field"),
                            ({"source": {"kind": "blog"}}, "source.kind: Input should be")):
        path = tmp_path / "a-keep-sqlite.json"
        path.write_text(json.dumps({**doc, **change}))
        with pytest.raises(InputError, match=message):
            load_sound_case(path)
    proc = sc("review", "--decision", str(CASES.parent.parent / "examples" / "decision.json"), "--mode",
              "independent_only", "--model", OA, env={})
    assert proc.returncode == 2 and proc.stderr.endswith("unknown decision mode 'independent_only'; known: "
                                                         "blind_first, proposal_first\n")
