"""`showcause bench --modes quorum,evidence_gate --quorum FILE`: the quorum against each of its own members,
over loopback peers in both wire formats that answer by the case they are shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchcases import CORRECT, NO_CHECKS, bench_cases, scripted
from builders import make_case
from llm_servers import AnthropicServer, OpenAIServer, turn
from quorum_servers import SourceSpec, config_for, user_text
from showcause.bench.report import render_report
from showcause.bench.runner import BenchConfig, run_bench
from showcause.core.errors import InputError

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

KEY = "sk-test-bench-quorum-0009"
RATE = "pkg/rate.py:2"


def _claim(location: str, text: str) -> str:
    return json.dumps({"summary": "s", "claims": [{"claim": text, "location": location, "evidence_refs": [location],
                                                   "result": "confirmed", "verdict": "MODIFY", "severity": "high"}]})


KEEP = json.dumps({"summary": "fine", "claims": []})
# A finds both defects (the renamed hook, the changed rate); B says KEEP to everything.
A_SAYS = {"pkg/pricing.py": _claim("settings.json:1", "settings.json:1 still names apply_discount, which is gone"),
          "pkg/rate.py": _claim(RATE, "rate() now triples instead of doubling"), "": KEEP}


class _ByCase:
    """Answers by the first marker (a file path of the case) found in the review prompt; "" is the default."""

    says: dict[str, str]
    tokens: tuple[int, int]

    def render(self, turn_: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        text = user_text({"messages": [m for m in body["messages"] if m.get("role") == "user"][:1]})
        content = next(v for k, v in self.says.items() if k in text)
        usage = {"prompt_tokens": self.tokens[0], "completion_tokens": self.tokens[1]}
        return super().render(turn(content, usage=usage), body)  # type: ignore[misc]


class CaseOpenAI(_ByCase, OpenAIServer):
    pass


class CaseAnthropic(_ByCase, AnthropicServer):
    pass


def _server(kind: type[Any], says: dict[str, str], tokens: tuple[int, int]) -> Any:
    server = kind(repeat_last=True, turns=[turn("-")])
    server.says, server.tokens = says, tokens
    return server.start()


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = bench_cases(tmp_path_factory.mktemp("cases"))
    (root / "add-doc").rename(root.parent / "add-doc-unused")   # three cases: two defects, one correct change
    make_case(root / "rate-tripled", {"pkg/rate.py": "def rate(x):\n    return x * 2\n"},
              {"pkg/rate.py": "def rate(x):\n    return x * 3\n"}, checks=NO_CHECKS,
              truth={"status": "defect", "kind": "untestable", "acceptable": ["WARNING", "MODIFY", "REPLACE"]})
    doc = json.loads((root / "rate-tripled" / "case.json").read_text())
    doc["source"] = {"kind": "synthetic", "url": "", "note": ""}
    (root / "rate-tripled" / "case.json").write_text(json.dumps(doc))
    assert CORRECT["acceptable"] == ["KEEP"]
    return root


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUORUM_TEST_KEY", KEY)


def _quorum(tmp_path: Path, a: Any, b: Any) -> Path:
    specs = [SourceSpec("a", a, 1, 1, {"model": "gpt-5-mini"}), SourceSpec("b", b, 1, 1, {"model": "claude-haiku-4"})]
    path = tmp_path / "pair.json"
    path.write_text(json.dumps(config_for(specs, {"tier1": 2}, "a", timeoutMs=20000)), encoding="utf-8")
    return path


def test_the_quorum_against_each_of_its_members_in_numbers(cases: Path, tmp_path: Path):
    a = _server(CaseOpenAI, A_SAYS, (100, 20))
    b = _server(CaseAnthropic, {"": KEEP}, (200, 10))
    out = tmp_path / "out"
    try:
        results = run_bench(BenchConfig(cases, ("quorum", "evidence_gate"), 1, 2, out, quorum=_quorum(tmp_path, a, b),
                                        retries=0))
    finally:
        a.stop()
        b.stop()
    records = {(r["case"], r["mode"], r["model"]): r for r in results["records"]}
    assert list(results["metrics"]) == ["quorum @ quorum:pair", "evidence_gate @ member:a",
                                        "evidence_gate @ member:b"]
    verdicts = {k: (r["verdict"], r["model_verdict"], r["status"]) for k, r in records.items()}
    assert verdicts == {
        # The renamed hook: the probes' floor blocks it in every arm.
        ("hook-renamed", "quorum", "quorum:pair"): ("MODIFY", "MODIFY", "ok"),
        ("hook-renamed", "evidence_gate", "member:a"): ("MODIFY", "MODIFY", "ok"),
        ("hook-renamed", "evidence_gate", "member:b"): ("MODIFY", "KEEP", "ok"),
        # The tripled rate: a's claim is unvalidated (a WARNING alone); in the quorum it weighs 1 of the 2
        # required, so it is not reported.
        ("rate-tripled", "quorum", "quorum:pair"): ("KEEP", "KEEP", "ok"),
        ("rate-tripled", "evidence_gate", "member:a"): ("WARNING", "MODIFY", "ok"),
        ("rate-tripled", "evidence_gate", "member:b"): ("KEEP", "KEEP", "ok"),
        ("add-helper", "quorum", "quorum:pair"): ("KEEP", "KEEP", "ok"),
        ("add-helper", "evidence_gate", "member:a"): ("KEEP", "KEEP", "ok"),
        ("add-helper", "evidence_gate", "member:b"): ("KEEP", "KEEP", "ok")}
    quorum = records[("rate-tripled", "quorum", "quorum:pair")]
    # A quorum record costs its members' calls: one each here.
    assert quorum["usage"] == {"calls": 2, "failed_calls": 0, "prompt_tokens": 300, "completion_tokens": 30,
                               "unpriced_calls": 0, "total_tokens": 330}
    assert quorum["cost_usd"] == pytest.approx(100 * 0.25e-6 + 20 * 2e-6 + 200 * 1e-6 + 10 * 5e-6)
    assert quorum["served_model"] == "quorum:a,b" and quorum["quorum"]["effective_votes"] == 2
    assert records[("rate-tripled", "evidence_gate", "member:b")]["served_model"] == "claude-haiku-4"
    rows = {r["arm"]: r for r in results["quorum_comparison"]}
    cells = {arm: (r["recall"]["k"], r["recall"]["n"], r["false_intervention"]["k"], r["false_intervention"]["n"],
                   r["tokens_per_ok_review"], r["cost_per_review_usd"]) for arm, r in rows.items()}
    assert cells == {"quorum @ quorum:pair": (1, 2, 0, 1, 330.0, pytest.approx(3.15e-4)),
                     "evidence_gate @ member:a": (2, 2, 0, 1, 120.0, pytest.approx(6.5e-5)),
                     "evidence_gate @ member:b": (1, 2, 0, 1, 210.0, pytest.approx(2.5e-4))}
    assert rows["quorum @ quorum:pair"]["recall"]["ci95"] == [0.0945, 0.9055]
    # hook-renamed and rate-tripled: a blocked or warned, b kept (2 votes); add-helper: both kept (1).
    assert rows["quorum @ quorum:pair"]["effective_votes"] == {"mean": 1.67, "records": {"1": 1, "2": 2}}
    assert rows["quorum @ quorum:pair"]["escalated"]["k"] == 0 and "effective_votes" not in rows[
        "evidence_gate @ member:a"]
    assert results["quorum"]["members"]["member:b"] == {"source": "b", "model": "claude-haiku-4",
                                                         "api_type": "anthropic", "tier": 1, "weight": 1}
    report = render_report(results, "showcause bench …")
    assert ("| `quorum @ quorum:pair` | 3 | 50% [9-91] (1/2) | 0% [0-79] (0/1) | 330.0 | $0.000315 | "
            "1.67 (1: 1, 2: 2) | 0% [0-56] (0/3) |") in report
    assert "| `evidence_gate @ member:a` | 3 | 100% [34-100] (2/2) | 0% [0-79] (0/1) | 120.0 | $0.000065 | — | — |" \
        in report
    assert KEY not in (out / "results.json").read_text() + (out / "records.jsonl").read_text()


def test_a_stopped_quorum_bench_resumes_and_refuses_a_changed_file(cases: Path, tmp_path: Path):
    a = _server(CaseOpenAI, A_SAYS, (100, 20))
    b = _server(CaseAnthropic, {"": KEEP}, (200, 10))
    out, path = tmp_path / "out", _quorum(tmp_path, a, b)
    try:
        # A quorum record reserves both members' whole budgets: 60000 tokens at each one's output price.
        limit = 60000 * 2e-6 + 60000 * 5e-6
        first = run_bench(BenchConfig(cases, ("quorum",), 1, 1, out, quorum=path, max_cost=limit + 1e-6))
        assert first["stopped"] is not None and len(first["records"]) == 1
        assert first["stopped"]["next_reserve_usd"] == pytest.approx(limit)
        done = run_bench(BenchConfig(cases, ("quorum",), 1, 1, out, quorum=path, resume=True))
        assert done["stopped"] is None and len(done["records"]) == 3 and len(a.posts()) == 3
        path.write_text(path.read_text().replace('"weight": 1', '"weight": 2', 1), encoding="utf-8")
        with pytest.raises(InputError, match="quorum changed"):
            run_bench(BenchConfig(cases, ("quorum",), 1, 1, out, quorum=path, resume=True))
    finally:
        a.stop()
        b.stop()


def test_quorum_flags_are_checked_before_anything_runs(cases: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    out = tmp_path / "out"
    with pytest.raises(InputError, match="--quorum goes with --modes quorum"):
        run_bench(BenchConfig(cases, ("mechanical",), 1, 1, out, quorum=tmp_path / "q.json"))
    with pytest.raises(InputError, match="needs its sources"):
        run_bench(BenchConfig(cases, ("quorum",), 1, 1, out))
    a, b = _server(CaseOpenAI, A_SAYS, (1, 1)), _server(CaseAnthropic, {"": KEEP}, (1, 1))
    try:
        path = _quorum(tmp_path, a, b)
        monkeypatch.delenv("QUORUM_TEST_KEY")
        with pytest.raises(InputError, match="quorum source a: its key variable QUORUM_TEST_KEY is not set"):
            run_bench(BenchConfig(cases, ("quorum", "evidence_gate"), 1, 1, out, quorum=path))
    finally:
        a.stop()
        b.stop()
    assert not out.exists()
    proc = subprocess.run([sys.executable, "-c", "from showcause.cli import main; main()", "bench", "run", str(cases),
                           "--modes", "quorum", "--quorum", str(tmp_path / "missing.json"), "--out", str(out)],
                          capture_output=True, text=True, timeout=120, env={**os.environ})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "missing.json" in proc.stderr and "cannot read" in proc.stderr


def test_with_model_the_named_models_are_the_comparison_not_the_members(cases: Path, tmp_path: Path):
    a, b = _server(CaseOpenAI, A_SAYS, (1, 1)), _server(CaseAnthropic, {"": KEEP}, (1, 1))
    model = scripted(tmp_path / "s.json", KEEP, 0.0)
    try:   # --max-cost 0: the first quorum record cannot reserve its members' budgets, so nothing runs
        results = run_bench(BenchConfig(cases, ("quorum", "evidence_gate"), 1, 1, tmp_path / "out",
                                        quorum=_quorum(tmp_path, a, b), models=(model,), max_cost=0.0))
    finally:
        a.stop()
        b.stop()
    assert [(j["case"], j["mode"], j["model"]) for j in results["not_run"]] == [
        (c, mode, m) for c in ("add-helper", "hook-renamed", "rate-tripled")
        for mode, m in (("quorum", "quorum:pair"), ("evidence_gate", model))]
    assert results["models"] == ["quorum:pair", model] and a.posts() == []


def test_quorum_shards_merge_into_the_unsharded_comparison(cases: Path, tmp_path: Path):
    from showcause.bench.merge import merge_shards
    from showcause.bench.shard import parse_shard

    a = _server(CaseOpenAI, A_SAYS, (100, 20))
    b = _server(CaseAnthropic, {"": KEEP}, (200, 10))
    path = _quorum(tmp_path, a, b)
    try:
        for i in (1, 2):
            run_bench(BenchConfig(cases, ("quorum",), 1, 1, tmp_path / f"s{i}", quorum=path,
                                  shard=parse_shard(f"{i}/2")))
    finally:
        a.stop()
        b.stop()
    merged = merge_shards([tmp_path / "s1", tmp_path / "s2"], tmp_path / "merged")
    assert len(merged["records"]) == 3 and len(a.posts()) == 3
    [row] = merged["quorum_comparison"]
    assert (row["recall"]["k"], row["recall"]["n"], row["effective_votes"]) == (
        1, 2, {"mean": 1.67, "records": {"1": 1, "2": 2}})
    assert merged["quorum"]["label"] == "quorum:pair"


def test_the_quorum_table_of_config_serves_when_no_quorum_file_is_given(cases: Path, tmp_path: Path):
    a, b = _server(CaseOpenAI, A_SAYS, (100, 20)), _server(CaseAnthropic, {"": KEEP}, (200, 10))
    data = json.loads(_quorum(tmp_path, a, b).read_text())
    lines = ["[quorum]", 'arbiter = "a"', "timeoutMs = 20000", "[quorum.thresholds]", "tier1 = 2"]
    for source in data["sources"]:
        lines += ["[[quorum.sources]]", *(f"{k} = {json.dumps(v)}" for k, v in source.items())]
    config = tmp_path / "team.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        results = run_bench(BenchConfig(cases, ("quorum",), 1, 2, tmp_path / "out", config=config))
    finally:
        a.stop()
        b.stop()
    assert [(r["model"], r["verdict"]) for r in results["records"]] == [
        ("quorum:team", "KEEP"), ("quorum:team", "MODIFY"), ("quorum:team", "KEEP")]
    assert results["quorum"]["file"] == str(config)
