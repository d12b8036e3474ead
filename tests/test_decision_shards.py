"""A decision bench in shards: `--shard I/N` slices it and `bench merge` joins the slices into exactly the
unsharded run (records, metrics, questions, mode orders, review sheet), against loopback OpenAI and
Anthropic servers that answer per mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from decision_bench_servers import DecisionAnthropic, DecisionOpenAI
from showcause.bench.attempts import record_key
from showcause.bench.review_sheet import KEY, SHEET
from showcause.bench.runner import BenchConfig, run_bench
from test_bench_shards import timeless

CASES = Path(__file__).with_name("decision_cases_small")
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
MODES = ("blind_first", "proposal_first", "decision_judge")
OA, AN = "openai:test-model", "anthropic:test-model"


def test_decision_shards_merge_into_the_unsharded_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with DecisionOpenAI() as oa, DecisionAnthropic() as an:
        env = {"OPENAI_API_KEY": "sk-test-dshard", "OPENAI_BASE_URL": oa.url,
               "ANTHROPIC_API_KEY": "sk-ant-test-dshard", "ANTHROPIC_BASE_URL": an.url}
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        base = dict(cases_dir=CASES, modes=MODES, runs=2, concurrency=2, models=(OA, AN))
        whole = run_bench(BenchConfig(out=tmp_path / "whole", **base))
        parts = [run_bench(BenchConfig(out=tmp_path / f"s{i}", shard=(i, 3), **base)) for i in (1, 2, 3)]
    assert all(p["records"] for p in parts)   # decision records are sliced by case id: every shard has some
    assert sorted(record_key(r) for p in parts for r in p["records"]) == sorted(map(record_key, whole["records"]))
    proc = subprocess.run([SHOWCAUSE, "bench", "merge", *(str(tmp_path / f"s{i}") for i in (2, 3, 1)), "--out",
                           str(tmp_path / "merged")], capture_output=True, text=True, timeout=120,
                          env={**os.environ})
    assert proc.returncode == 0, proc.stderr
    merged = json.loads((tmp_path / "merged" / "results.json").read_text())
    assert len(whole["records"]) == 5 * 3 * 2 * 2 and all(r["status"] == "ok" for r in whole["records"])
    assert timeless(merged["records"]) == timeless(whole["records"])
    for key in ("kind", "metrics", "questions", "rules", "mode_budgets", "mode_orders", "review_sheet_rows",
                "not_run", "comparisons"):
        assert timeless(merged[key]) == timeless(whole[key]), key
    assert merged["kind"] == "decision" and merged["review_sheet_rows"] > 0 and "shard" not in merged
    for name in (SHEET, KEY):   # the sheet's item numbers and row order come from the seed, not the shard
        assert (tmp_path / "merged" / name).read_text() == (tmp_path / "whole" / name).read_text(), name
    assert "# " in (tmp_path / "merged" / "report.md").read_text()

