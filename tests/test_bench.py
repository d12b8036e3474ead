"""`showcause bench` and `showcause cases verify` on small case sets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builders import make_case
from showcause.bench.metrics import compute_metrics, wilson
from test_review import DEMO, RENAME_BASE, RENAME_HEAD

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")


def sc(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cases")
    shutil.copytree(DEMO, root / "demo-case")
    make_case(root / "rename-ok", RENAME_BASE, RENAME_HEAD,
              checks={"tests": ["tests/test_orders.py"], "typecheck": "pyright"},
              truth={"status": "correct", "kind": "none", "acceptable": ["KEEP"]})
    doc = json.loads((root / "rename-ok" / "case.json").read_text())
    doc["source"] = {"kind": "synthetic", "url": "", "note": ""}
    (root / "rename-ok" / "case.json").write_text(json.dumps(doc))
    return root


def test_wilson_interval():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(5, 10)
    assert round(lo, 3) == 0.237 and round(hi, 3) == 0.763
    lo, hi = wilson(20, 20)
    assert round(lo, 3) == 0.839 and hi == 1.0


def test_metrics_report_failures_beside_rates_over_successful_runs():
    truth = {"d": {"status": "defect", "kind": "test", "acceptable": ["MODIFY", "REPLACE"]},
             "c": {"status": "correct", "kind": "none", "acceptable": ["KEEP"]}}
    recs = [{"case": "d", "mode": "m", "run": 1, "verdict": "MODIFY", "model_verdict": "MODIFY", "status": "ok",
             "error": None, "seconds": 1.0, "claims": []},
            {"case": "d", "mode": "m", "run": 2, "verdict": "INCONCLUSIVE", "model_verdict": "INCONCLUSIVE",
             "status": "error", "error": {"code": "TIMEOUT", "message": ""}, "seconds": 9.0, "claims": []},
            {"case": "c", "mode": "m", "run": 1, "verdict": "WARNING", "model_verdict": "MODIFY", "status": "ok",
             "error": None, "seconds": 1.0, "claims": []}]
    m = compute_metrics(recs, truth)["m"]
    assert m["gated"]["recall"]["test"] | {"ci95": None} == {"k": 1, "n": 1, "rate": 1.0, "ci95": None, "failed": 1}
    assert (m["expected"], m["ok"], m["failed"], m["not_run"]) == (3, 2, 1, 0)
    assert m["failures_by_code"] == {"TIMEOUT": 1}
    assert m["gated"]["false_intervention"]["k"] == 0 and m["ungated"]["false_intervention"]["k"] == 1
    assert m["gated"]["warning_on_correct"]["k"] == 1 and m["gated"]["flagged_on_correct"]["k"] == 1


def test_bench_outputs_and_resume(cases: Path, tmp_path: Path):
    out = tmp_path / "out"
    env = {"SHOWCAUSE_CACHE_DIR": str(tmp_path / "cache"), "SHOWCAUSE_PROCESSES": "3"}
    proc = sc("bench", str(cases), "--modes", "mechanical", "--runs", "1", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "mechanical: recall test 1/1, all_defects 1/1; false interventions 0/1; failed 0" in proc.stdout
    results = json.loads((out / "results.json").read_text())
    assert [(r["case"], r["verdict"], r["status"]) for r in results["records"]] == [
        ("demo-case", "MODIFY", "ok"), ("rename-ok", "KEEP", "ok")]
    assert set(results["records"][0]) >= {"case", "mode", "run", "verdict", "model_verdict", "status", "error",
                                          "seconds", "usage", "cost_usd", "claims"}
    assert results["metrics"]["mechanical"]["gate"] == {"claims": 3, "validated": 3, "downgraded": 0,
                                                        "unconfirmed": 0}
    assert (results["concurrency"], results["process_slots"]) == (2, 3)
    report = (out / "report.md").read_text()
    assert "concurrency 2 (3 sandboxed processes at a time)" in report
    assert "| test | 100% [21-100] (1/1)" in report and "| false intervention (MODIFY/REPLACE) | 0% [0-79] (0/1)" \
        in report
    assert (out / "recall_fi.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The same --out without --resume is refused; --resume with nothing left to do re-runs nothing.
    again = sc("bench", str(cases), "--out", str(out), env=env)
    assert again.returncode == 2 and "use --resume" in again.stderr
    resumed = sc("bench", str(cases), "--out", str(out), "--resume", env=env)
    assert resumed.returncode == 0
    assert json.loads((out / "results.json").read_text())["wall_seconds"] < 1.0
    # A changed case set cannot be resumed into.
    (cases / "rename-ok" / "base" / "extra.txt").write_text("changed")
    try:
        refused = sc("bench", str(cases), "--out", str(out), "--resume", env=env)
        assert refused.returncode == 2 and "case_set changed" in refused.stderr
    finally:
        (cases / "rename-ok" / "base" / "extra.txt").unlink()


def test_bench_bad_input(cases: Path, tmp_path: Path):
    assert "unknown mode" in sc("bench", str(cases), "--modes", "nope", "--out", str(tmp_path / "o")).stderr
    bad = sc("bench", str(tmp_path / "missing"), "--out", str(tmp_path / "o2"))
    assert bad.returncode == 2 and "no such directory" in bad.stderr
    for name, text, message in (("missing.toml", None, "missing.toml: no such config file"),
                                ("bad.toml", "[review]\nmax_review_tokens = -5\n",
                                 "max_review_tokens must be positive")):
        config = tmp_path / name
        if text is not None:
            config.write_text(text, encoding="utf-8")
        bad = sc("bench", str(cases), "--config", str(config), "--out", str(tmp_path / "o3"))
        assert bad.returncode == 2 and message in bad.stderr and not (tmp_path / "o3").exists(), bad.stderr


def test_cases_verify(cases: Path, tmp_path: Path):
    proc = sc("cases", "verify", str(cases))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.splitlines()[-1] == "2 passed, 0 failed"
    broken = tmp_path / "broken"
    shutil.copytree(cases / "demo-case", broken / "demo-case")
    doc = json.loads((broken / "demo-case" / "case.json").read_text())
    doc["truth"]["evidence"] = ["tests/test_cart.py::test_total_without_discount"]   # passes on head
    (broken / "demo-case" / "case.json").write_text(json.dumps(doc))
    (broken / "demo-case" / "case.json").write_text(json.dumps(doc))
    shutil.copytree(cases / "rename-ok", broken / "wrong-id")
    fail = sc("cases", "verify", str(broken))
    assert fail.returncode == 1
    lines = fail.stdout.splitlines()
    assert lines[0].startswith("FAIL demo-case") and "test_total_without_discount is passed on head" in lines[0]
    assert lines[1].startswith("FAIL wrong-id") and "does not match the folder name" in lines[1]
    assert lines[-1] == "0 passed, 2 failed"


def test_big_projects_run_first_and_results_keep_the_plan_order(tmp_path: Path):
    from showcause.bench.runner import BenchConfig, run_bench

    root = tmp_path / "cases"
    correct = {"status": "correct", "kind": "none", "acceptable": ["KEEP"]}
    make_case(root / "a-small", {"a.py": "A = 1\n"}, {"a.py": "A = 2\n"}, truth=correct,
              checks={"tests": [], "typecheck": "none"})
    make_case(root / "z-big", {f"m{i}.py": f"V{i} = {i}\n" for i in range(30)}, {"m0.py": "V0 = -1\n"},
              truth=correct, checks={"tests": [], "typecheck": "none"})
    for case in root.iterdir():
        doc = json.loads((case / "case.json").read_text())
        doc["source"] = {"kind": "synthetic", "url": "", "note": ""}
        (case / "case.json").write_text(json.dumps(doc))
    out = tmp_path / "out"
    results = run_bench(BenchConfig(root, ("mechanical",), 2, 1, out))
    ran = [(r["case"], r["run"]) for r in map(json.loads, (out / "records.jsonl").read_text().splitlines())]
    assert ran == [("z-big", 1), ("a-small", 1), ("z-big", 2), ("a-small", 2)]
    assert [(r["case"], r["run"]) for r in results["records"]] == [("a-small", 1), ("z-big", 1), ("a-small", 2),
                                                                   ("z-big", 2)]
