"""`showcause bench --executor dask…`: records on a real Dask LocalCluster of two worker processes."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client

from benchcases import bench_cases
from decision_bench_servers import DecisionOpenAI
from llm_servers import OpenAIServer, slow, turn
from showcause.bench import remote
from showcause.bench.dask_exec import local_cluster, warm_cluster
from showcause.bench.runner import BenchConfig, run_bench
from showcause.core.errors import InputError
from test_bench_shards import timeless

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

KEEP = json.dumps({"summary": "fine", "claims": []})
DECISION_CASES = Path(__file__).with_name("decision_cases_small")
MODEL = "openai:test-model"   # no known price: every attempt reserves --unpriced-reserve


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_cases(tmp_path_factory.mktemp("cases"))


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster(2) as c:
        yield "dask://" + c.scheduler_address.removeprefix("tcp://")


def keys(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["case"], r["mode"], r["model"], r["run"]) for r in records]


def test_cluster_records_match_the_local_run(cases: Path, cluster: str, tmp_path: Path):
    with OpenAIServer(repeat_last=True) as server:
        server.add_turns(turn(content=KEEP, cost=0.01))
        base = dict(cases_dir=cases, modes=("mechanical", "decision_judge"), runs=1, concurrency=2, models=(MODEL,),
                    base_url=server.url, unpriced_reserve=0.05)
        here = run_bench(BenchConfig(out=tmp_path / "local", **base))
        there = run_bench(BenchConfig(out=tmp_path / "dask", executor=cluster, record_timeout=120, **base))
    assert [r["verdict"] for r in here["records"]] == ["KEEP", "KEEP", "KEEP", "KEEP", "MODIFY", "KEEP"]
    assert timeless(there["records"]) == timeless(here["records"])
    assert timeless(there["metrics"]) == timeless(here["metrics"])
    assert there["spend"]["attempts"] == 6 and there["spend"]["charged_usd"] == pytest.approx(0.03)


def test_max_cost_holds_across_workers(cases: Path, cluster: str, tmp_path: Path):
    with OpenAIServer(repeat_last=True) as server:
        server.add_turns(turn(content=KEEP, cost=0.02))
        results = run_bench(BenchConfig(cases, ("decision_judge",), 2, 2, tmp_path / "out", models=(MODEL,),
                                        base_url=server.url, unpriced_reserve=0.05, max_cost=0.1, executor=cluster))
        posts = len(server.posts())
    # Each attempt leases its $0.05 reserve at the coordinator before it is sent: two fit at once, never more.
    assert results["stopped"] is not None and results["stopped"]["reason"] == "max_cost"
    assert results["spend"]["charged_usd"] <= 0.1 + 1e-9 and posts == len(results["records"]) <= 4
    assert len(results["records"]) + len(results["not_run"]) == 6


def test_a_killed_worker_s_record_runs_again_once(cases: Path, cluster: str, tmp_path: Path):
    out = tmp_path / "out"
    with OpenAIServer(repeat_last=True) as server, Client(cluster.replace("dask://", "tcp://")) as client:
        server.add_turns(turn(content=KEEP, cost=0.01))
        server.fail(slow(3.0), times=2)   # the first two calls hang long enough to kill a worker under them
        pids = list(client.run(os.getpid).values())

        def kill_one() -> None:
            deadline = time.monotonic() + 60
            while len(server.posts()) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(pids[0], signal.SIGKILL)

        killer = threading.Thread(target=kill_one)
        killer.start()
        results = run_bench(BenchConfig(cases, ("decision_judge",), 1, 2, out, models=(MODEL,), base_url=server.url,
                                        unpriced_reserve=0.05, max_cost=1.0, backoff_s=0.0, executor=cluster))
        killer.join()
    lines = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert Counter(keys(lines)) == Counter(keys(results["records"])) and len(lines) == 3   # none lost or doubled
    assert [r["status"] for r in results["records"]] == ["ok", "ok", "ok"] and results["not_run"] == []
    lost = [x for r in results["records"] for x in r["retries"] if x["code"] == "WORKER_LOST"]
    assert len(lost) == 1
    # The lost attempt is charged its whole reserve: spend that cannot be seen is never assumed to be zero.
    assert results["spend"]["attempts"] == 4 and results["spend"]["charged_usd"] == pytest.approx(0.03 + 0.05)


def test_record_timeout_kills_the_attempt_and_a_fresh_process_retries_it(cases: Path, cluster: str, tmp_path: Path):
    with OpenAIServer(repeat_last=True) as server:
        server.add_turns(turn(content=KEEP, cost=0.01))
        server.fail(slow(30.0))   # the first call hangs far past the timeout
        started = time.monotonic()
        results = run_bench(BenchConfig(cases, ("decision_judge",), 1, 1, tmp_path / "out", models=(MODEL,),
                                        base_url=server.url, unpriced_reserve=0.05, backoff_s=0.0,
                                        executor=cluster, record_timeout=4))
        took = time.monotonic() - started
    timed_out = [x for r in results["records"] for x in r["retries"]]
    assert [x["code"] for x in timed_out] == ["TIMEOUT"] and "process group was killed" in timed_out[0]["message"]
    assert [r["status"] for r in results["records"]] == ["ok", "ok", "ok"] and took < 25
    assert results["spend"]["charged_usd"] == pytest.approx(0.03 + 0.05)   # the killed attempt: its reserve


def test_a_decision_bench_on_the_cluster_matches_the_local_run(cluster: str, tmp_path: Path):
    with DecisionOpenAI() as server:
        base = dict(cases_dir=DECISION_CASES, modes=("blind_first", "decision_judge"), runs=1, concurrency=2,
                    models=("openai:test-model",), base_url=server.url)
        here = run_bench(BenchConfig(out=tmp_path / "local", **base))
        there = run_bench(BenchConfig(out=tmp_path / "dask", executor=cluster, **base))
    assert len(here["records"]) == 10 and all(r["status"] == "ok" for r in here["records"])
    assert timeless(there["records"]) == timeless(here["records"])
    for key in ("kind", "metrics", "questions", "mode_orders", "review_sheet_rows"):
        assert timeless(there[key]) == timeless(here[key]), key
    assert there["spend"]["attempts"] == here["spend"]["attempts"] == 10


def test_workers_are_warmed_once_and_their_warm_children_run_the_records(cases: Path, cluster: str, tmp_path: Path):
    def idle() -> list[int]:
        return sorted(p.pid for p in remote._idle if p.poll() is None)

    with OpenAIServer(repeat_last=True) as server, Client(cluster.replace("dask://", "tcp://")) as client:
        server.add_turns(turn(content=KEEP, cost=0.01))
        setup = {"config": None, "isolation": None}
        assert warm_cluster(client, setup) == 2 and warm_cluster(client, setup) == 2   # topped up, never more
        warmed = client.run(idle)
        assert [len(pids) for pids in warmed.values()] == [1, 1]
        results = run_bench(BenchConfig(cases, ("decision_judge",), 2, 2, tmp_path / "out", models=(MODEL,),
                                        base_url=server.url, unpriced_reserve=0.05, executor=cluster))
        after = client.run(idle)
    assert [r["status"] for r in results["records"]] == ["ok"] * 6
    assert after == warmed   # the six records ran in the children warmed before the bench, no new one started


def test_executor_input_errors(cases: Path, tmp_path: Path):
    for executor, why in (("dask-local:0", "--executor"), ("spark://x:1", "--executor"),
                          ("dask://127.0.0.1:9", "cannot reach the scheduler")):
        with pytest.raises(InputError, match=why):
            run_bench(BenchConfig(cases, ("mechanical",), 1, 1, tmp_path / "o", executor=executor))
    with pytest.raises(InputError, match="--record-timeout"):
        run_bench(BenchConfig(cases, ("mechanical",), 1, 1, tmp_path / "o", record_timeout=5))
