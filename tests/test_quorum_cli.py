"""`showcause ask` and `showcause peers` as a user runs them, and the single-source façade functions
(query_peer, list_peers, count_tokens) the MCP tools wrap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quorum_servers import QuorumAnthropic, QuorumOpenAI, SourceSpec, config_for, ratings_arbiter
from showcause.core.errors import InputError
from showcause.service import quorum as quorum_service
from showcause.service.quorum import load_quorum, parse_history

KEY = "sk-test-cli-0004"


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, QuorumOpenAI, QuorumAnthropic]]:
    monkeypatch.setenv("QUORUM_TEST_KEY", KEY)
    ratings = {"cheap": 1.0, "deep": 0.8}
    cheap = QuorumOpenAI(answer="Paris", arbiter=ratings_arbiter("Paris", ratings, caller=0.2)).start()
    deep = QuorumAnthropic(answer="Paris, France").start()
    path = tmp_path / "quorum.json"
    data = config_for([SourceSpec("cheap", cheap, 1, 1), SourceSpec("deep", deep, 2, 2)], {"tier1": 1, "tier2": 3},
                      "cheap", timeoutMs=5000)
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        yield path, cheap, deep
    finally:
        cheap.stop()
        deep.stop()


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("SHOWCAUSE_SKIP_LOCAL", "PEER_REVIEW_SKIP_LOCAL")}
    return subprocess.run([sys.executable, "-c", "from showcause.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120, env={**base, **(env or {})})


def test_ask_prints_the_result_object_and_exits_0(setup: tuple[Path, Any, Any], tmp_path: Path):
    path, _cheap, deep = setup
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "model", "content": "hello"}]))
    proc = _cli("ask", "Capital of France?", "--quorum", str(path), "--format", "json", "--caller-answer", "Lyon",
                "--history", str(history))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["response"], data["certaintyScore"], data["callerAgreement"]) == ("Paris", 0.9, 0.2)
    assert data["quorum"]["achieved"] is True and data["quorum"]["tier"] == 2
    assert set(data) == {"response", "certaintyScore", "callerAgreement", "quorum", "tokenUsage", "cost_usd"}
    assert [m["content"] for m in deep.posts()[0].body["messages"]] == ["hi", "hello", "Capital of France?"]
    assert KEY not in proc.stdout + proc.stderr


def test_ask_exits_0_when_the_quorum_is_not_achieved_and_3_when_nobody_answered(setup: tuple[Path, Any, Any]):
    path, cheap, _deep = setup
    cheap.arbiter = ratings_arbiter("Paris", {"cheap": 0.1, "deep": 0.1})
    proc = _cli("ask", "q", "--quorum", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "quorum NOT achieved at tier 2: agreeing weight 0 of 3, certainty 0" in proc.stdout
    proc = _cli("ask", "q", "--quorum", str(path), "--format", "json", env={"QUORUM_TEST_KEY": ""})
    assert proc.returncode == 3, proc.stderr
    data = json.loads(proc.stdout)
    assert data["response"] is None and [s["status"] for s in data["quorum"]["sources"]] == ["unavailable"] * 2


@pytest.mark.parametrize(("args", "message"), [
    (["--tier", "7"], "tier: no threshold is configured for tier 7"),
    (["--format", "xml"], "--format must be json or text"),
    (["--history", "/nonexistent/h.json"], "--history /nonexistent/h.json"),
])
def test_ask_refuses_bad_input_with_exit_2(setup: tuple[Path, Any, Any], args: list[str], message: str):
    proc = _cli("ask", "q", "--quorum", str(setup[0]), *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_a_bad_configuration_is_exit_2_naming_the_field(tmp_path: Path):
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"thresholds": {"tier1": 1}, "arbiter": "caller", "sources": [
        {"name": "caller", "apiType": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "m", "apiKeyEnv": "K",
         "weight": 1, "tier": 1}]}))
    for command in ("ask", "peers"):
        proc = _cli(command, *(["q"] if command == "ask" else []), "--quorum", str(path))
        assert proc.returncode == 2
        assert "sources[0].name: 'caller' is reserved" in proc.stderr and "Traceback" not in proc.stderr


def test_peers_lists_the_sources_and_their_availability(setup: tuple[Path, Any, Any]):
    proc = _cli("peers", "--quorum", str(setup[0]), "--json", env={"QUORUM_TEST_KEY": ""})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"count": 2, "sources": [
        {"name": "cheap", "apiType": "openai", "model": "cheap-model", "weight": 1, "tier": 1, "available": False},
        {"name": "deep", "apiType": "anthropic", "model": "deep-model", "weight": 2, "tier": 2, "available": False}]}


def test_query_peer_and_count_tokens(setup: tuple[Path, Any, Any]):
    path, _cheap, deep = setup
    quorum = load_quorum(path)
    answer = quorum_service.query_peer(quorum, "Capital?")
    assert answer == {"response": "Paris", "model": "cheap-model", "source": "cheap", "finishReason": "stop",
                      "tokenUsage": {"prompt": 10, "completion": 5, "total": 15}}
    assert quorum_service.query_peer(quorum, "Capital?", source="deep")["response"] == "Paris, France"
    assert quorum_service.count_tokens(quorum, "0123456789") == {"totalTokens": 3, "model": "cheap-model",
                                                          "source": "cheap", "method": "estimate"}
    assert quorum_service.count_tokens(quorum, "some text", source="deep") == {"totalTokens": 42, "model": "deep-model",
                                                                       "source": "deep", "method": "api"}
    count = deep.posts()[-1]
    assert count.path == "/v1/messages/count_tokens" and count.headers["x-api-key"] == KEY
    assert count.body == {"model": "deep-model", "messages": [{"role": "user", "content": "some text"}]}
    with pytest.raises(InputError, match="source: 'nobody' is not a configured source"):
        quorum_service.query_peer(quorum, "q", source="nobody")
    with pytest.raises(InputError, match="history\\[0\\]: role must be"):
        parse_history([{"role": "assistant", "content": "x"}])
