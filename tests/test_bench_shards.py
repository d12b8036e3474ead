"""`showcause bench --shard I/N` and `bench merge`: shards of one plan join into the unsharded run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchcases import bench_cases, scripted
from showcause.bench.attempts import record_key
from showcause.bench.merge import merge_shards
from showcause.bench.rules import default_rules_path
from showcause.bench.runner import BenchConfig, run_bench
from showcause.bench.shard import in_shard, parse_shard
from showcause.core.errors import InputError

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
MODIFY = json.dumps({"summary": "s", "claims": [{"claim": "the change is wrong", "evidence_refs": [],
                                                 "result": "confirmed", "verdict": "MODIFY"}]})
TIMING = ("seconds", "seconds_total")


def timeless(value: Any) -> Any:
    """A record or metrics without wall-clock fields (the only ones two runs of one plan may differ in)."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def sc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=300, env={**os.environ})


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_cases(tmp_path_factory.mktemp("cases"))


def test_shard_slices_are_stable_disjoint_and_cover_the_plan():
    keys = [(f"case-{i}", mode, model, run) for i in range(40) for mode, model in
            (("mechanical", None), ("evidence_gate", "scripted:/a.json")) for run in (1, 2)]
    slices = [[k for k in keys if in_shard(k, (i, 3))] for i in (1, 2, 3)]
    assert sorted(k for s in slices for k in s) == sorted(keys) and all(slices)
    # By identity, not position: the same record lands in the same shard in a bigger or reordered plan.
    assert [k for k in reversed(keys) if in_shard(k, (2, 3))] == list(reversed(slices[1]))
    assert parse_shard("2/3") == (2, 3) and parse_shard(None) is None
    for bad in ("0/3", "4/3", "1/0", "a/b", "1"):
        with pytest.raises(InputError):
            parse_shard(bad)


def test_shards_merge_into_the_unsharded_run(cases: Path, tmp_path: Path):
    model = scripted(tmp_path / "m.json", MODIFY, 0.001)
    rules = tmp_path / "repo.toml"   # a repo bench's --rules question: the merge answers it over every shard
    head = default_rules_path().read_text().split("[[questions]]")[0]
    rules.write_text(head + '[[questions]]\nid = "R1"\na = "evidence_gate"\nb = "mechanical"\n'
                     'metric = "false_intervention"\nbetter = "lower"\n')
    base = dict(cases_dir=cases, modes=("mechanical", "evidence_gate"), runs=1, concurrency=2, models=(model,),
                baseline="mechanical", max_cost=1.0, rules=rules)
    whole = run_bench(BenchConfig(out=tmp_path / "whole", **base))
    parts = [run_bench(BenchConfig(out=tmp_path / f"s{i}", shard=(i, 3), **base)) for i in (1, 2, 3)]
    # Each record in exactly one shard (a shard may be empty: the slice is a hash of identities holding tmp paths).
    assert sorted(map(record_key, (r for p in parts for r in p["records"]))) == \
        sorted(map(record_key, whole["records"]))
    r = sc("bench", "merge", *(str(tmp_path / f"s{i}") for i in (3, 1, 2)), "--out", str(tmp_path / "merged"))
    assert r.returncode == 0, r.stderr
    merged = json.loads((tmp_path / "merged" / "results.json").read_text())
    assert timeless(merged["records"]) == timeless(whole["records"])
    assert timeless(merged["metrics"]) == timeless(whole["metrics"])
    assert merged["comparisons"] == whole["comparisons"] and merged["not_run"] == [] and "shard" not in merged
    assert [q["id"] for q in merged["questions"]] == ["R1"] and merged["questions"] == whole["questions"]
    assert merged["rules"] == whole["rules"] and merged["kind"] == whole["kind"] == "repo"
    assert merged["spend"]["charged_usd"] == pytest.approx(whole["spend"]["charged_usd"])
    assert merged["spend"]["attempts"] == whole["spend"]["attempts"] == 6
    assert (tmp_path / "merged" / "report.md").is_file() and (tmp_path / "merged" / "recall_fi.png").is_file()
    # The merged folder is a finished run: a resume of it has nothing left to do.
    again = run_bench(BenchConfig(out=tmp_path / "merged", resume=True, **base))
    assert timeless(again["records"]) == timeless(whole["records"])
    # A shard resumes as itself; resuming it as another slice is refused.
    assert len(run_bench(BenchConfig(out=tmp_path / "s1", shard=(1, 3), resume=True, **base))["records"]) == \
        len(parts[0]["records"])
    with pytest.raises(InputError, match="shard"):
        run_bench(BenchConfig(out=tmp_path / "s1", shard=(2, 3), resume=True, **base))
    rules.write_text(rules.read_text().replace("resamples = 5000", "resamples = 4000"))
    with pytest.raises(InputError, match="changed since the shards ran"):
        merge_shards([tmp_path / f"s{i}" for i in (1, 2, 3)], tmp_path / "merged-again")


def test_merge_refuses_overlapping_incomplete_or_mismatched_shards(cases: Path, tmp_path: Path):
    base = dict(cases_dir=cases, modes=("mechanical",), runs=1, concurrency=2)
    for i in (1, 2):
        run_bench(BenchConfig(out=tmp_path / f"s{i}", shard=(i, 2), **base))
    run_bench(BenchConfig(out=tmp_path / "other", shard=(2, 2), **{**base, "runs": 2}))
    run_bench(BenchConfig(out=tmp_path / "plain", **base))
    s1, s2 = tmp_path / "s1", tmp_path / "s2"
    refusals = {"overlap": [s1, s1, s2], "missing shard(s) 2/2": [s1], "runs": [s1, tmp_path / "other"],
                "not a shard": [s1, s2, tmp_path / "plain"], "no bench result": [s1, tmp_path / "none"]}
    for why, folders in refusals.items():
        with pytest.raises(InputError, match=re.escape(why)):
            merge_shards(folders, tmp_path / "m")
    assert not (tmp_path / "m" / "results.json").exists()
    r = sc("bench", "merge", str(s1), str(s1), str(s2), "--out", str(tmp_path / "m"))
    assert r.returncode == 2 and "shards overlap" in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = sc("bench", "run", str(cases), "--shard", "3/2", "--out", str(tmp_path / "bad"))
    assert r.returncode == 2 and "--shard" in r.stderr
    # One bench group: `bench DIR` is `bench run DIR`; merge, ingest and compare are its other commands.
    r = sc("bench", "--help")
    assert r.returncode == 0 and all(re.search(rf"^\W*{c}\b", r.stdout, re.M) for c in
                                     ("run", "merge", "ingest", "compare")), r.stdout
