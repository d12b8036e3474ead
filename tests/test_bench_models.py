"""`showcause bench --model …`: model-driven modes through `scripted:` and loopback HTTP servers.

Cases are tiny real projects (no tests, no typecheck), so a review costs a snapshot, the gate and at most
one search probe: the model side is what is measured here.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchcases import CORRECT, bench_cases, scripted
from llm_servers import Fault, OpenAIServer, status, turn
from showcause.bench.bootstrap import compare_modes, paired_bootstrap
from showcause.bench.costs import Meter, SpendLedger, charged_usd, price_per_token, review_reserve
from showcause.bench.identity import git_state, url_host
from showcause.bench.runner import BenchConfig, run_bench
from showcause.core.errors import InputError
from showcause.judges.prompting import load_prompt
from showcause.policy import load_policy
from showcause.providers.base import Usage

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
REPO = Path(__file__).resolve().parents[1]
KEEP = json.dumps({"summary": "fine", "claims": []})
MODIFY = json.dumps({"summary": "s", "claims": [{"claim": "the change is wrong", "evidence_refs": [],
                                                 "result": "confirmed", "verdict": "MODIFY"}]})
SECRET = "sk-bench-secret-key-0123456789"


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_cases(tmp_path_factory.mktemp("cases"))


def script(path: Path, content: str, cost: float) -> str:
    return scripted(path, content, cost)


def sc(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=300, env=env or {**os.environ})


def ledger(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "spend.jsonl").read_text().splitlines()]


class FaultAt(OpenAIServer):
    """Injects a fault into the n-th request (0-based), whatever came before it."""

    fault_at: dict[int, Fault]

    def handle(self, method: str, path: str, headers: dict[str, str], body: Any, raw: bytes):
        if len(self.requests) in self.fault_at:
            self.fail(self.fault_at[len(self.requests)])
        return super().handle(method, path, headers, body, raw)


def fault_server(faults: dict[int, Fault], *turns: dict[str, Any]) -> FaultAt:
    server = FaultAt(turns=list(turns))
    server.fault_at = faults
    return server


def test_every_case_run_mode_and_model_is_a_record(cases: Path, tmp_path: Path):
    a = script(tmp_path / "a.json", MODIFY, 0.001)
    b = script(tmp_path / "b.json", KEEP, 0.002)
    out = tmp_path / "out"
    results = run_bench(BenchConfig(cases, ("mechanical", "evidence_gate", "decision_judge"), 2, 2, out,
                                    models=(a, b), baseline="mechanical"))
    records = results["records"]
    ids = ["add-doc", "add-helper", "hook-renamed"]
    arms = [("mechanical", None), ("evidence_gate", a), ("evidence_gate", b), ("decision_judge", a),
            ("decision_judge", b)]
    # Planned run by run, case by case; mechanical runs once per case and run, with no model.
    assert [(r["run"], r["case"], r["mode"], r["model"]) for r in records] == [
        (run, c, mode, model) for run in (1, 2) for c in ids for mode, model in arms]
    for r in records:
        assert r["status"] == "ok" and r["attempts"] == 1 and r["retries"] == []
        if r["model"] is None:
            assert r["usage"]["calls"] == 0 and r["cost_usd"] is None and r["cost_source"] == "none"
            continue
        assert r["usage"] == {"calls": 1, "failed_calls": 0, "prompt_tokens": 100, "completion_tokens": 20,
                              "unpriced_calls": 0, "total_tokens": 120}
        assert r["cost_usd"] == (0.001 if r["model"] == a else 0.002) and r["cost_source"] == "reported"
        assert r["served_model"] == "scripted" and r["prompts"] == {r["mode"]: load_prompt(r["mode"])[1]}
        said = "MODIFY" if r["model"] == a else "KEEP"
        # The gate turns the model's unproven MODIFY into a WARNING; in evidence_gate the probes' own claim on
        # the dangling hook blocks hook-renamed whatever the model said (the floor: docs/gate.md).
        floor = r["mode"] == "evidence_gate" and r["case"] == "hook-renamed"
        assert (r["verdict"], r["model_verdict"]) == ("MODIFY" if floor else "WARNING" if said == "MODIFY" else "KEEP",
                                                      said)
    assert list(results["metrics"]) == ["mechanical", f"evidence_gate @ {a}", f"evidence_gate @ {b}",
                                        f"decision_judge @ {a}", f"decision_judge @ {b}"]
    m = results["metrics"][f"evidence_gate @ {a}"]
    assert (m["expected"], m["ok"], m["failed"], m["not_run"]) == (6, 6, 0, 0)
    # The gate turned every unproven MODIFY into WARNING; the ungated counterfactual keeps the model's verdict;
    # the defect is caught gated too, by the probes' own claim.
    assert (m["gated"]["false_intervention"]["k"], m["gated"]["false_intervention"]["n"]) == (0, 4)
    assert (m["ungated"]["false_intervention"]["k"], m["ungated"]["false_intervention"]["n"]) == (4, 4)
    assert (m["ungated"]["recall"]["all_defects"]["k"], m["gated"]["recall"]["all_defects"]["k"]) == (2, 2)
    assert m["cost_usd"] == pytest.approx(0.006) and m["tokens_per_ok_review"]["median"] == 120.0
    # Against the mechanical baseline: same FI (0 on all), and on the one defect case the same recall for
    # evidence_gate (its probes' floor), none for the probe-less baseline (0 vs 1).
    comps = {(c["mode"], c["model"], c["metric"]): c for c in results["comparisons"]}
    assert len(comps) == 8
    for mode, model in arms[1:]:
        fi, rec = comps[(mode, model, "false_intervention")], comps[(mode, model, "recall")]
        assert (fi["difference"], fi["ci95"], fi["cases"], fi["resamples"], fi["seed"]) == (0.0, [0.0, 0.0], 2,
                                                                                             5000, 42)
        caught = 2 if mode == "evidence_gate" else 0
        assert (rec["difference"], rec["ci95"], rec["a"], rec["b"]) == (
            (caught - 2) / 2, [(caught - 2) / 2] * 2, {"k": caught, "n": 2}, {"k": 2, "n": 2})
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    assert results["git"]["sha"] == head and isinstance(results["git"]["dirty"], bool)
    assert results["prompt_hashes"]["evidence_gate"] == load_prompt("evidence_gate")[1]
    assert results["budgets"]["default"]["tokens"] == 60000 and results["budgets"]["blind_first"]["tokens"] == 100000
    assert results["seed"] == 42 and results["models"] == [a, b]
    assert results["base_url_hosts"] == {a: None, b: None}
    entries = ledger(out)
    assert len(entries) == 30 and sum(e["charged_usd"] for e in entries) == pytest.approx(0.036)
    assert results["spend"]["charged_usd"] == pytest.approx(0.036)
    assert json.loads((out / "results.json").read_text())["expected_records"] == 30


def test_two_models_over_http_share_one_rate_limit(cases: Path, tmp_path: Path):
    out = tmp_path / "out"
    with OpenAIServer(repeat_last=True) as server:
        server.add_turns(turn(content=KEEP, cost=0.004))
        proc = sc("bench", str(cases), "--modes", "decision_judge", "--model", "openai:model-a", "--model",
                  "openai:model-b", "--base-url", server.url, "--concurrency", "2", "--max-rpm", "60",
                  "--out", str(out), env={**os.environ, "OPENAI_API_KEY": SECRET})
        posts = server.posts()
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.body["model"] for p in posts) == ["model-a"] * 3 + ["model-b"] * 3
    arrivals = sorted(p.at for p in posts)
    # 60 per minute: the i-th call across both workers starts no earlier than i seconds after the first (the
    # slack is the first request's own send time; unpaced workers would all arrive within milliseconds).
    # Measured from the first arrival, so one late send on a loaded machine cannot shrink a later gap.
    lags = [round(t - arrivals[0], 3) for t in arrivals]
    assert all(lag >= i - 0.5 for i, lag in enumerate(lags)), lags
    results = json.loads((out / "results.json").read_text())
    assert [(r["case"], r["model"], r["verdict"], r["cost_usd"]) for r in results["records"]] == [
        (c, m, "KEEP", 0.004) for c in ("add-doc", "add-helper", "hook-renamed")
        for m in ("openai:model-a", "openai:model-b")]
    assert results["base_url_hosts"] == {m: f"127.0.0.1:{server.port}" for m in ("openai:model-a", "openai:model-b")}
    assert results["max_rpm"] == 60 and results["rate_limit_waited_s"] > 0
    for name in ("results.json", "report.md", "spend.jsonl", "records.jsonl", "run.json"):
        assert SECRET not in (out / name).read_text()
    assert "| decision_judge | openai:model-a | 3 | 3 | 0 | 0 |" in (out / "report.md").read_text()


def test_transient_failure_is_retried_and_every_attempt_is_counted(cases: Path, tmp_path: Path):
    out = tmp_path / "out"
    tool = turn(tool_calls=[("list_files", {})], cost=0.01)
    with fault_server({1: status(503, retry_after=60)}, tool, tool, turn(content=KEEP, cost=0.01)) as server:
        results = run_bench(BenchConfig(cases / "add-helper", ("evidence_gate",), 1, 1, out,
                                        models=("openai:m",), base_url=server.url, retries=2, backoff_s=0.05))
        assert len(server.posts()) == 4
    (record,) = results["records"]
    assert (record["status"], record["verdict"], record["attempts"]) == ("ok", "KEEP", 2)
    (retry,) = record["retries"]
    assert (retry["attempt"], retry["code"], retry["status"], retry["cost_usd"], retry["backoff_s"]) == (
        1, "PROVIDER_HTTP_ERROR", 503, 0.01, 0.05)
    # Usage and cost over both attempts: the failed one paid for its first call.
    assert record["usage"]["calls"] == 4 and record["usage"]["failed_calls"] == 1
    assert record["cost_usd"] == pytest.approx(0.03)
    assert [(e["attempt"], e["code"], e["cost_usd"]) for e in ledger(out)] == [
        (1, "PROVIDER_HTTP_ERROR", 0.01), (2, None, 0.02)]


def test_resume_refuses_changes_and_reruns_only_transient_failures(cases: Path, tmp_path: Path):
    out = tmp_path / "out"
    with fault_server({1: status(503, retry_after=60)},
                      turn(content=KEEP), turn(content="nope"), turn(content="still nope")) as server:
        cfg = BenchConfig(cases, ("decision_judge",), 1, 1, out, models=("openai:m",), base_url=server.url,
                          retries=0)
        first = run_bench(cfg)
        assert [(r["case"], r["status"], (r["error"] or {}).get("code")) for r in first["records"]] == [
            ("add-doc", "ok", None), ("add-helper", "error", "PROVIDER_HTTP_ERROR"),
            ("hook-renamed", "error", "MALFORMED_RESPONSE")]
        m = first["metrics"]["decision_judge @ openai:m"]
        # Failures are beside the rates, never inside them and never dropped.
        assert (m["expected"], m["ok"], m["failed"]) == (3, 1, 2)
        assert m["failures_by_code"] == {"PROVIDER_HTTP_ERROR": 1, "MALFORMED_RESPONSE": 1}
        assert m["gated"]["false_intervention"] | {"ci95": None} == {"k": 0, "n": 1, "rate": 0.0, "ci95": None,
                                                                   "failed": 1}
        assert m["gated"]["recall"]["all_defects"] | {"ci95": None} == {"k": 0, "n": 0, "rate": None, "ci95": None,
                                                                      "failed": 1}
        saved = {n: (out / n).read_bytes() for n in ("run.json", "records.jsonl", "spend.jsonl", "results.json")}
        for changed, expect in (({"models": ("openai:other",)}, "models"),
                                ({"config": tmp_path / "policy.toml"}, "config"),
                                ({"base_url": server.url.replace("127.0.0.1", "localhost")}, "base_url_hosts")):
            (tmp_path / "policy.toml").write_text("# another policy\n")
            with pytest.raises(InputError, match=f"--resume refused: .*{expect}.* changed"):
                run_bench(replace(cfg, resume=True, **changed))
        assert {n: (out / n).read_bytes() for n in saved} == saved and len(server.posts()) == 4
        server.add_turns(turn(content=KEEP))
        second = run_bench(replace(cfg, resume=True))
        assert len(server.posts()) == 5   # only the transient failure ran again
    records = {r["case"]: r for r in second["records"]}
    assert records["add-helper"]["status"] == "ok" and records["add-helper"]["attempts"] == 2
    assert [(x["code"], x["status"], x["resumed"]) for x in records["add-helper"]["retries"]] == [
        ("PROVIDER_HTTP_ERROR", 503, True)]
    assert records["hook-renamed"]["error"]["code"] == "MALFORMED_RESPONSE" and records["hook-renamed"]["attempts"] == 1
    assert records["add-doc"] == first["records"][0]
    assert len(ledger(out)) == 4 and second["spend"]["attempts"] == 4


def test_max_cost_stops_cleanly_and_a_resume_counts_earlier_spend(cases: Path, tmp_path: Path):
    out = tmp_path / "out"
    with OpenAIServer(repeat_last=True) as server:
        server.add_turns(turn(content=KEEP, cost=0.02))
        args = ["bench", str(cases), "--modes", "decision_judge", "--model", "openai:test-model", "--base-url",
                server.url, "--runs", "2", "--concurrency", "1", "--unpriced-reserve", "0.05", "--out", str(out)]
        # No price is known for test-model: each review reserves $0.05. 0.04 + 0.05 fits under 0.10; 0.06 + 0.05
        # does not, so three reviews run and three are listed as not run.
        stopped = sc(*args, "--max-cost", "0.1")
        assert stopped.returncode == 3, stopped.stderr
        assert "stopped at --max-cost $0.1" in stopped.stderr and "3 review(s) not run" in stopped.stderr
        assert len(server.posts()) == 3
        results = json.loads((out / "results.json").read_text())
        assert [(r["run"], r["case"]) for r in results["records"]] == [
            (1, "add-doc"), (1, "add-helper"), (1, "hook-renamed")]
        assert results["not_run"] == [{"case": c, "mode": "decision_judge", "model": "openai:test-model", "run": 2}
                                      for c in ("add-doc", "add-helper", "hook-renamed")]
        assert results["stopped"] == {"reason": "max_cost", "max_cost_usd": 0.1, "spent_usd": 0.06,
                                      "next_reserve_usd": 0.05,
                                      "next": "add-doc decision_judge openai:test-model run 2"}
        m = results["metrics"]["decision_judge @ openai:test-model"]
        assert (m["expected"], m["ok"], m["failed"], m["not_run"]) == (6, 3, 0, 3)
        assert len(results["records"]) + len(results["not_run"]) == results["expected_records"] == 6
        assert results["spend"]["charged_usd"] == pytest.approx(0.06)
        report = (out / "report.md").read_text()
        assert "**Stopped at the cost limit**" in report and "| add-doc | decision_judge | openai:test-model | 2 |" \
            in report
        # The ledger is read back: the same limit admits nothing more; a higher one lets the rest run.
        cfg = BenchConfig(cases, ("decision_judge",), 2, 1, out, resume=True, models=("openai:test-model",),
                          base_url=server.url, unpriced_reserve=0.05, max_cost=0.1)
        again = run_bench(cfg)
        assert again["stopped"] is not None and len(again["records"]) == 3 and len(server.posts()) == 3
        final = run_bench(replace(cfg, max_cost=1.0))
        assert len(server.posts()) == 6
    assert len(final["records"]) == 6 and final["not_run"] == [] and final["stopped"] is None
    assert final["spend"]["charged_usd"] == pytest.approx(0.12)
    assert final["spend"]["charged_before_this_session_usd"] == pytest.approx(0.06)


def test_bench_input_errors_write_nothing(cases: Path, tmp_path: Path):
    out = tmp_path / "out"
    with pytest.raises(InputError, match="mode 'evidence_gate' needs a model"):
        run_bench(BenchConfig(cases, ("evidence_gate",), 1, 1, out))
    with pytest.raises(InputError, match="--baseline 'proposal_first' is not one of --modes"):
        run_bench(BenchConfig(cases, ("mechanical",), 1, 1, out, baseline="proposal_first"))
    with pytest.raises(InputError, match="--model nope: "):
        run_bench(BenchConfig(cases, ("decision_judge",), 1, 1, out, models=("nope",)))
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    nokey = sc("bench", str(cases), "--modes", "decision_judge", "--model", "openai:gpt-5-mini", "--out", str(out),
               env=env)
    assert nokey.returncode == 2 and "--model openai:gpt-5-mini: no API key" in nokey.stderr
    assert "OPENAI_API_KEY" in nokey.stderr and not out.exists()


def test_bootstrap_on_hand_computable_examples():
    same = paired_bootstrap([(1, 2, 1, 2), (0, 2, 0, 2), (2, 2, 2, 2)])
    assert (same["difference"], same["ci95"], same["cases"]) == (0.0, [0.0, 0.0], 3)
    always = paired_bootstrap([(2, 2, 0, 2), (1, 1, 0, 1), (3, 3, 0, 3)])
    assert (always["difference"], always["ci95"], always["a"], always["b"]) == (1.0, [1.0, 1.0], {"k": 6, "n": 6},
                                                                                {"k": 0, "n": 6})
    # Two cases, one differing: a resample holds it twice (1), once (0.5) or never (0): quantiles 0 and 1.
    two = paired_bootstrap([(1, 1, 0, 1), (0, 1, 0, 1)])
    assert (two["difference"], two["ci95"]) == (0.5, [0.0, 1.0])
    assert paired_bootstrap([])["difference"] is None and paired_bootstrap([])["ci95"] is None


def test_bootstrap_is_deterministic_for_a_seed():
    rng = random.Random(3)
    clusters = [(rng.randint(0, 3), 3, rng.randint(0, 3), 3) for _ in range(12)]
    first = paired_bootstrap(clusters, seed=7)
    random.random()   # the global generator is not used
    assert paired_bootstrap(clusters, seed=7) == first and first["seed"] == 7 and first["resamples"] == 5000
    lo, hi = first["ci95"]
    assert lo <= first["difference"] <= hi


def test_bootstrap_pairs_only_cases_both_modes_completed():
    truth = {"c1": CORRECT, "c2": CORRECT, "d1": {"status": "defect", "kind": "test", "acceptable": ["MODIFY"]}}

    def rec(case: str, mode: str, verdict: str, status: str = "ok") -> dict[str, Any]:
        return {"case": case, "mode": mode, "model": "x" if mode != "mechanical" else None, "run": 1,
                "verdict": verdict, "status": status}

    records = [rec("c1", "mechanical", "KEEP"), rec("c1", "decision_judge", "MODIFY"),
               rec("c2", "mechanical", "KEEP"), rec("c2", "decision_judge", "INCONCLUSIVE", "error"),
               rec("d1", "mechanical", "MODIFY"), rec("d1", "decision_judge", "MODIFY")]
    fi, recall = compare_modes(records, truth, "mechanical")
    assert (fi["metric"], fi["model"], fi["baseline_model"], fi["cases"], fi["difference"]) == (
        "false_intervention", "x", None, 1, 1.0)
    assert (recall["metric"], recall["cases"], recall["difference"], recall["ci95"]) == ("recall", 1, 0.0, [0.0, 0.0])


def test_costs_are_counted_per_call_never_all_or_nothing():
    assert price_per_token("openai:gpt-5-mini") == pytest.approx((0.25e-6, 2.0e-6))
    assert price_per_token("scripted:/x.json") == (0.0, 0.0) and price_per_token("openai:no-such-model") is None
    # The whole token budget at the higher (output) price: 60k tokens x $2/M; two passes; blind_first's own 100k.
    assert review_reserve("evidence_gate", "openai:gpt-5-mini", 0.5) == pytest.approx(0.12)
    assert review_reserve("proposal_first_2pass", "openai:gpt-5-mini", 0.5) == pytest.approx(0.24)
    assert review_reserve("blind_first", "openai:gpt-5-mini", 0.5) == pytest.approx(0.20)
    assert review_reserve("evidence_gate", "openai:no-such-model", 0.5) == 0.5
    assert review_reserve("mechanical", None, 0.5) == 0.0
    # The bench's --config sets the budgets, so it sets the reserve too.
    config = load_policy({"review": {"max_review_tokens": 120_000, "blind_max_review_tokens": 50_000}})
    assert review_reserve("evidence_gate", "openai:gpt-5-mini", 0.5, config) == pytest.approx(0.24)
    assert review_reserve("blind_first", "openai:gpt-5-mini", 0.5, config) == pytest.approx(0.10)
    meter = Meter((1e-6, 2e-6))
    meter.add(Usage(100, 10, 0.5, estimated=False))
    meter.add(Usage(100, 10, 0.25, estimated=True))
    meter.add(Usage(5, 5, None))
    meter.add_failure("TIMEOUT", None, 1000, 500)             # may be billed: charged as the whole cap
    meter.add_failure("PROVIDER_HTTP_ERROR", 503, 1000, 500)  # refused by the server: not billed
    s = meter.summary()
    assert (s["calls"], s["failed_calls"], s["prompt_tokens"], s["completion_tokens"]) == (5, 2, 1205, 525)
    assert s["cost_reported_usd"] == 0.5 and s["cost_estimated_usd"] == pytest.approx(0.252)
    assert s["cost_usd"] == pytest.approx(0.752) and s["unpriced_calls"] == 1 and s["cost_source"] == "mixed"
    assert meter.last_error == ("PROVIDER_HTTP_ERROR", 503)
    assert charged_usd(s, 1.0) == 1.0 and charged_usd(s, 0.1) == pytest.approx(0.752)


def test_provenance_never_carries_credentials(tmp_path: Path):
    assert url_host("https://user:sk-secret@api.example.com:8443/v1/key/abc?api_key=1") == "api.example.com:8443"
    assert url_host("http://127.0.0.1:8080/v1") == "127.0.0.1:8080" and url_host(None) is None
    assert git_state(tmp_path) == {"sha": None, "dirty": None}


def test_a_start_waits_for_reviews_in_flight_and_stops_only_when_nothing_can_make_room(tmp_path: Path):
    spend = SpendLedger(tmp_path / "spend.jsonl", 0.1)
    assert spend.reserve(0.06, "first")
    started = threading.Event()

    def second() -> None:
        assert spend.reserve(0.06, "second")   # 0.06 in flight + 0.06 > 0.10: waits for the first to settle
        started.set()

    waiter = threading.Thread(target=second)
    waiter.start()
    assert not started.wait(0.3)
    spend.settle(0.06, {"charged_usd": 0.01, "cost_usd": 0.01})
    assert started.wait(5)
    waiter.join()
    spend.settle(0.06, {"charged_usd": 0.05, "cost_usd": 0.05})
    assert not spend.reserve(0.05, "third")   # 0.06 spent + 0.05 > 0.10 with nothing in flight: stop
    assert spend.stopped == {"reason": "max_cost", "max_cost_usd": 0.1, "spent_usd": 0.06, "next_reserve_usd": 0.05,
                             "next": "third"}
    assert not spend.reserve(0.0, "fourth")   # once stopped, nothing starts
    reread = SpendLedger(tmp_path / "spend.jsonl", 0.1)
    assert reread.spent == pytest.approx(0.06) and len(reread.entries) == 2
