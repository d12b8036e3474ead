"""`showcause mcp --quorum FILE`: the predecessor's four tools over the SDK's client (in memory), their strict
schemas, and the command refusing a bad quorum file with exit 2 before it serves anything."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from blind_samples import SHOWCAUSE
from builders import git_repo
from llm_servers import AnthropicServer, OpenAIServer, start_server, turn
from quorum_servers import SourceSpec, config_for, peer_posts, user_text
from quorum_stack import CONSENSUS, RATINGS, Stack
from showcause.mcpserver import Roots, ServerConfig, build_server
from showcause.service.quorum import load_quorum

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    monkeypatch.setenv("QUORUM_TEST_KEY", "sk-test-quorum-0001")
    monkeypatch.setenv("GEMINI_TEST_KEY", "sk-test-gemini-0002")
    for var in ("SHOWCAUSE_SKIP_LOCAL", "PEER_REVIEW_SKIP_LOCAL", "PEER_REVIEW_DEADLINE_MS", "PEER_TIMEOUT_MS"):
        monkeypatch.delenv(var, raising=False)
    s = Stack(RATINGS, caller=0.1)
    try:
        yield s
    finally:
        s.stop()


def _calls(cfg: ServerConfig, *calls: tuple[str, dict[str, Any]]) -> tuple[list[str], list[Any]]:
    async def go() -> tuple[list[str], list[Any]]:
        async with Client(build_server(cfg)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            return names, [await client.call_tool(name, args) for name, args in calls]
    return anyio.run(go)


def test_the_quorum_tools_are_served_only_with_a_quorum(stack: Stack, tmp_path: Path):
    plain, _ = _calls(ServerConfig(roots=Roots.of([tmp_path])))
    assert not {"peer_review", "query_peer", "list_peers", "count_tokens"} & set(plain)
    cfg = ServerConfig(roots=Roots.of([tmp_path]), quorum=load_quorum(stack.config(tmp_path)))
    secret = "CALLER-ANSWER-SENTINEL-31"
    names, (review, peers, one, count, bad) = _calls(
        cfg, ("peer_review", {"prompt": "What does HTTP status 431 mean?", "callerAnswer": secret}),
        ("list_peers", {}), ("query_peer", {"prompt": "431?", "source": "gemini-pro"}),
        ("count_tokens", {"text": "x" * 40, "source": "gemini-flash"}),
        ("peer_review", {"prompt": "q", "model": "gpt-5", "temperature": 1}))
    assert names[-4:] == ["peer_review", "query_peer", "list_peers", "count_tokens"]
    doc = review.structured_content
    assert (doc["response"], doc["certaintyScore"], doc["callerAgreement"]) == (CONSENSUS, 0.98, 0.1)
    assert (doc["quorum"]["achieved"], doc["quorum"]["tier"]) == (True, 2)
    assert all(secret not in user_text(p.body) for server in (stack.flash, stack.mini, stack.pro, stack.claude)
               for p in peer_posts(server))
    assert review.content[0].text.endswith("quorum reached at tier 2 (certaintyScore 0.98)")
    assert [s["name"] for s in peers.structured_content["sources"]] == ["gemini-flash", "gpt-mini", "gemini-pro",
                                                                         "claude"]
    assert (one.structured_content["source"], one.structured_content["response"]) == (
        "gemini-pro", "The server refuses oversized headers (431).")
    assert count.structured_content == {"totalTokens": 10, "model": count.structured_content["model"],
                                        "source": "gemini-flash", "method": "estimate"}
    assert bad.is_error is True and "Additional properties are not allowed" in bad.content[0].text


def test_review_change_in_quorum_mode_takes_its_members_from_the_quorum_file(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("QUORUM_TEST_KEY", "sk-test-quorum-0001")
    repo = git_repo(tmp_path / "r", [{"calc.py": "def add(a, b):\n    return a + b\n",
                                      "test_calc.py": "from calc import add\n\n\ndef test_add():\n"
                                                      "    assert add(2, 3) == 5\n"}])
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")   # uncommitted: the test now fails
    keep = json.dumps({"summary": "fine", "claims": []})
    a, b = start_server(OpenAIServer, [turn(content=keep)]), start_server(AnthropicServer, [turn(content=keep)])
    try:
        path = tmp_path / "quorum.json"
        path.write_text(json.dumps(config_for([SourceSpec("a", a, 1, 1), SourceSpec("b", b, 1, 1)], {"tier1": 2},
                                              "a")), encoding="utf-8")
        plain = ServerConfig(roots=Roots.of([tmp_path]))
        cfg = ServerConfig(roots=Roots.of([tmp_path]), quorum=load_quorum(path), quorum_file=path)
        _, (refused,) = _calls(plain, ("review_change", {"repo": str(repo), "mode": "quorum"}))
        _, (review,) = _calls(cfg, ("review_change", {"repo": str(repo), "mode": "quorum"}))
        asked = (len(a.posts()), len(b.posts()))
    finally:
        a.stop()
        b.stop()
    assert refused.is_error is True and json.loads(refused.content[0].text)["error"]["code"] == "MODEL_REQUIRED"
    doc = review.structured_content
    # Both members said KEEP; the probes' validated regression blocks whatever the members answer.
    assert (doc["verdict"], doc["meta"]["mode"]) == ("MODIFY", "quorum")
    assert [(m["name"], m["verdict"]) for m in doc["meta"]["quorum"]["members"]] == [("a", "KEEP"), ("b", "KEEP")]
    assert asked == (1, 1)


def test_a_bad_quorum_file_stops_the_command_with_exit_2(tmp_path: Path):
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"thresholds": {"tier1": 1}, "arbiter": "nobody", "sources": []}), encoding="utf-8")
    proc = subprocess.run([SHOWCAUSE, "mcp", "--quorum", str(path)], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "showcause: error: sources: must be a non-empty array of sources\n"
