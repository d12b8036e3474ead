"""The quorum when peers misbehave: a slow reasoner aborted once faster tier-mates suffice, 429s, 500s,
timeouts, the overall deadline, key commands (cached, re-minted once on a 401), skipped sources."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from llm_server_base import ServerBase, rate_limited, slow, status
from quorum_servers import QuorumAnthropic, QuorumOpenAI, SourceSpec, config_for, peer_posts, ratings_arbiter
from showcause.core.errors import QuorumConfigError
from showcause.service.quorum import ask_quorum, load_quorum, parse_history

KEY = "sk-test-faults-0003"


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUORUM_TEST_KEY", KEY)
    for var in ("SHOWCAUSE_SKIP_LOCAL", "PEER_REVIEW_SKIP_LOCAL", "PEER_REVIEW_DEADLINE_MS", "PEER_TIMEOUT_MS"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def servers() -> Iterator[list[ServerBase]]:
    started: list[ServerBase] = []
    yield started
    for server in started:
        server.stop()


def _start(servers: list[ServerBase], server: ServerBase) -> Any:
    servers.append(server.start())
    return server


def _quorum(tmp: Path, specs: list[SourceSpec], thresholds: dict[str, int], arbiter: str, **top: Any) -> Any:
    path = tmp / "quorum.json"
    path.write_text(json.dumps(config_for(specs, thresholds, arbiter, **top)), encoding="utf-8")
    return load_quorum(path)


def _statuses(result: Any) -> list[tuple[str, str, str | None]]:
    return [(s.name, s.status, s.error) for s in result.sources]


def test_a_slow_reasoner_is_aborted_when_faster_tier_mates_suffice(servers: list[ServerBase], tmp_path: Path):
    ratings = {"fast-a": 1.0, "fast-b": 0.9, "reasoner": 1.0}
    fast_a = _start(servers, QuorumOpenAI(answer="A", arbiter=ratings_arbiter("A", ratings)))
    fast_b = _start(servers, QuorumAnthropic(answer="A too"))
    reasoner = _start(servers, QuorumOpenAI(answer="A, after long thought"))
    reasoner.fail(slow(20))
    quorum = _quorum(tmp_path, [SourceSpec("fast-a", fast_a, 2, 1), SourceSpec("fast-b", fast_b, 2, 1),
                                SourceSpec("reasoner", reasoner, 1, 1)], {"tier1": 4}, "fast-a", timeoutMs=30000)
    started = time.monotonic()
    result = ask_quorum(quorum, "q")
    assert time.monotonic() - started < 5
    assert result.achieved and result.certainty == 0.95
    assert _statuses(result) == [("fast-a", "ok", None), ("fast-b", "ok", None), ("reasoner", "error", "ABORTED")]
    assert result.to_dict()["quorum"]["sources"][2] == {"name": "reasoner", "model": "reasoner-model",
                                                        "status": "error", "weight": 1, "agreement": None,
                                                        "error": "ABORTED"}
    # Asked at most once, never again: under load the abort can come before its request reached the server.
    assert len(peer_posts(reasoner)) <= 1


def test_rate_limits_server_errors_and_timeouts_are_itemized(servers: list[ServerBase], tmp_path: Path):
    ratings = {"steady": 1.0, "limited": 1.0, "broken": 1.0, "stalled": 1.0, "late": 1.0}
    steady = _start(servers, QuorumOpenAI(answer="yes", arbiter=ratings_arbiter("yes", ratings)))
    limited = _start(servers, QuorumOpenAI(answer="yes"))
    limited.fail(rate_limited(0.01), times=3)
    broken = _start(servers, QuorumAnthropic(answer="yes"))
    broken.fail(status(500, retry_after=0.01), times=3)
    stalled = _start(servers, QuorumOpenAI(answer="yes"))
    stalled.fail(slow(10))
    late = _start(servers, QuorumOpenAI(answer="yes"))   # one 429, then an answer: retried
    late.fail(rate_limited(0.01))
    specs = [SourceSpec("steady", steady, 1, 1), SourceSpec("limited", limited, 1, 1),
             SourceSpec("broken", broken, 1, 1), SourceSpec("stalled", stalled, 1, 1, {"timeoutMs": 400}),
             SourceSpec("late", late, 1, 1)]
    result = ask_quorum(_quorum(tmp_path, specs, {"tier1": 5}, "steady", timeoutMs=3000), "q")
    assert _statuses(result) == [("steady", "ok", None), ("limited", "error", "RATE_LIMITED"),
                                 ("broken", "error", "PROVIDER_HTTP_ERROR"), ("stalled", "error", "TIMEOUT"),
                                 ("late", "ok", None)]
    assert len(limited.posts()) == 3 and len(broken.posts()) == 3 and len(late.posts()) == 2
    assert (result.achieved, result.agreeing_weight, result.certainty) == (False, 2, 0.4)


def test_the_deadline_returns_what_it_has(servers: list[ServerBase], tmp_path: Path):
    first = _start(servers, QuorumOpenAI(answer="the first answer"))
    second = _start(servers, QuorumOpenAI(answer="the second answer"))
    second.fail(slow(0.5))
    judge = _start(servers, QuorumOpenAI(arbiter=lambda _t: "no json here"))
    judge.fail(slow(0.9), times=4)   # each evaluation: the reply and its repair, 1.8 s in all
    specs = [SourceSpec("first", first, 1, 1), SourceSpec("second", second, 1, 1), SourceSpec("judge", judge, 1, 1)]
    quorum = _quorum(tmp_path, specs, {"tier1": 1}, "judge", timeoutMs=1000, deadlineMs=2000)
    started = time.monotonic()
    result = ask_quorum(quorum, "q", caller_source="judge")
    assert 1.9 < time.monotonic() - started < 2.5
    data = result.to_dict()
    assert data["response"] == "the first answer" and data["certaintyScore"] == 0
    assert data["quorum"]["deadlineExceeded"] is True and data["quorum"]["arbiterFailed"] is True
    assert result.arbiter_calls == 3   # mid-tier: reply + repair; end of tier: cut by the deadline


def test_a_deadline_that_cannot_fit_the_tier_waves_is_refused_at_load(servers: list[ServerBase], tmp_path: Path):
    peer = _start(servers, QuorumOpenAI())
    specs = [SourceSpec("a", peer, 1, 1), SourceSpec("b", peer, 1, 2)]
    with pytest.raises(QuorumConfigError, match=r"deadlineMs: 3000 ms cannot fit 2 sequential tier waves .*4000 ms"):
        _quorum(tmp_path, specs, {"tier1": 1, "tier2": 2}, "a", timeoutMs=1000, deadlineMs=3000)


def test_a_key_command_is_cached_and_reminted_once_after_a_401(servers: list[ServerBase], tmp_path: Path):
    counter = tmp_path / "mints"
    command = f"n=$(cat {counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {counter}; echo minted-$n"
    peer = _start(servers, QuorumOpenAI(answer="ok", arbiter=ratings_arbiter("ok", {"cmd": 1.0}),
                                        valid_keys={"minted-2"}))
    quorum = _quorum(tmp_path, [SourceSpec("cmd", peer, 1, 1, {"apiKeyCommand": command})], {"tier1": 1},
                     "cmd")
    first = ask_quorum(quorum, "q")
    second = ask_quorum(quorum, "q again")
    assert first.achieved and second.achieved
    assert counter.read_text().strip() == "2"   # minted, refused, re-minted; then cached for the next call
    keys = [r.headers["authorization"] for r in peer.posts()]
    assert keys == ["Bearer minted-1", "Bearer minted-2", "Bearer minted-2", "Bearer minted-2", "Bearer minted-2"]
    assert "minted-" not in json.dumps(first.to_dict()) + json.dumps(second.to_dict())


def test_skip_local_and_caller_source_skip_sources(servers: list[ServerBase], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch):
    ratings = {"cloud": 1.0, "local": 1.0, "me": 1.0}
    cloud = _start(servers, QuorumOpenAI(answer="yes", arbiter=ratings_arbiter("yes", ratings)))
    local = _start(servers, QuorumOpenAI(answer="yes"))
    me = _start(servers, QuorumOpenAI(answer="yes"))
    specs = [SourceSpec("cloud", cloud, 1, 1), SourceSpec("local", local, 1, 1, {"local": True}),
             SourceSpec("me", me, 1, 1)]
    quorum = _quorum(tmp_path, specs, {"tier1": 1}, "cloud")
    for var in ("SHOWCAUSE_SKIP_LOCAL", "PEER_REVIEW_SKIP_LOCAL"):
        monkeypatch.setenv(var, "1")
        result = ask_quorum(quorum, "q", caller_source="me")
        monkeypatch.delenv(var)
        assert _statuses(result) == [("cloud", "ok", None), ("local", "skipped", None), ("me", "skipped", None)]
        assert result.to_dict()["quorum"]["sources"][1] == {"name": "local", "model": "local-model",
                                                            "status": "skipped", "weight": 1, "agreement": None}
    assert local.posts() == [] and me.posts() == []
    result = ask_quorum(_quorum(tmp_path, specs, {"tier1": 3}, "cloud"), "q", caller_source="nobody")
    assert [s.status for s in result.sources] == ["ok", "ok", "ok"]
    assert result.warnings == ["callerSource 'nobody' names no configured source: ignored"]


def test_history_reaches_the_peers_in_their_wire_format(servers: list[ServerBase], tmp_path: Path):
    openai = _start(servers, QuorumOpenAI(answer="yes", arbiter=ratings_arbiter("yes", {"o": 1.0, "a": 1.0})))
    anthropic = _start(servers, QuorumAnthropic(answer="yes"))
    quorum = _quorum(tmp_path, [SourceSpec("o", openai, 1, 1), SourceSpec("a", anthropic, 1, 1)], {"tier1": 2}, "o")
    history = parse_history([{"role": "user", "content": "earlier"}, {"role": "model", "content": "reply"}])
    ask_quorum(quorum, "now", history=history)
    assert peer_posts(openai)[0].body["messages"] == [
        {"role": "user", "content": "earlier"}, {"role": "assistant", "content": "reply"},
        {"role": "user", "content": "now"}]
    assert "temperature" not in peer_posts(openai)[0].body
    assert peer_posts(anthropic)[0].body["messages"] == [
        {"role": "user", "content": "earlier"}, {"role": "assistant", "content": "reply"},
        {"role": "user", "content": "now"}]
    assert peer_posts(anthropic)[0].headers["x-api-key"] == KEY


def test_an_aborted_request_stops_reading_at_once_and_sends_nothing_more(servers: list[ServerBase]):
    import threading

    from showcause.core.errors import PeerAborted, ProviderNetworkError
    from showcause.providers.abort import AbortableHttpClient

    server = _start(servers, QuorumOpenAI(answer="late"))
    server.fail(slow(10))
    client = AbortableHttpClient(label="t", max_retries=2, backoff_base_s=0.01, backoff_max_s=1.0)
    outcome: list[BaseException] = []

    def request() -> None:
        try:
            client.request("POST", f"{server.url}/chat/completions", headers={}, body={"model": "m", "messages": []},
                           timeout_s=30)
        except (PeerAborted, ProviderNetworkError) as exc:
            outcome.append(exc)

    thread = threading.Thread(target=request)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.posts() and time.monotonic() < deadline:   # the request is in flight, not merely started
        time.sleep(0.01)
    started = time.monotonic()
    client.abort()
    thread.join(timeout=5)
    assert not thread.is_alive() and time.monotonic() - started < 1.0
    assert [type(e) for e in outcome] == [PeerAborted]
    assert len(server.posts()) == 1 and client.aborted


def test_token_usage_is_what_the_replies_reported(servers: list[ServerBase], tmp_path: Path):
    judge = _start(servers, QuorumOpenAI(answer="yes", arbiter=ratings_arbiter("yes", {"judge": 1.0, "quiet": 1.0})))
    quiet = _start(servers, QuorumAnthropic(answer="yes", tokens=None))   # reports no usage: counts 0
    quorum = _quorum(tmp_path, [SourceSpec("judge", judge, 1, 1), SourceSpec("quiet", quiet, 1, 1)], {"tier1": 2},
                     "judge")
    data = ask_quorum(quorum, "q").to_dict()
    assert data["tokenUsage"] == {"prompt": 10 + 30, "completion": 5 + 20, "total": 65}


def test_json_mode_asks_only_the_arbiter_for_a_json_object(servers: list[ServerBase], tmp_path: Path):
    from quorum_servers import arbiter_posts

    judge = _start(servers, QuorumOpenAI(answer="yes", arbiter=ratings_arbiter("yes", {"judge": 1.0, "peer": 1.0})))
    peer = _start(servers, QuorumOpenAI(answer="yes"))
    quorum = _quorum(tmp_path, [SourceSpec("judge", judge, 1, 1, {"jsonMode": True}), SourceSpec("peer", peer, 1, 1)],
                     {"tier1": 2}, "judge", maxOutputTokens=321)
    assert ask_quorum(quorum, "q").achieved
    assert arbiter_posts(judge)[0].body["response_format"] == {"type": "json_object"}
    assert arbiter_posts(judge)[0].body["messages"][0]["role"] == "system"
    for body in (peer_posts(judge)[0].body, peer_posts(peer)[0].body):
        assert set(body) == {"model", "messages", "max_tokens"} and body["max_tokens"] == 321
