"""The stdio relay of `showcause mcp`: a session's opening answered from the SDK's own earlier answers.

Real `showcause mcp` subprocesses, spoken to over their pipes in the protocol's JSON lines (the 2025-11-25
`initialize` handshake that today's agents send) and through the SDK's own client (its 2026 `server/discover`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from blind_samples import SHOWCAUSE
from showcause.mcpserver import relay

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "agent", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "should_review", "arguments": {"risk_level": "critical",
                                                           "decision_type": "architecture"}}}


class Server:
    """One `showcause mcp` process over raw pipes."""

    def __init__(self, cache: Path, root: Path, *extra: str) -> None:
        env = {**os.environ, "SHOWCAUSE_CACHE_DIR": str(cache)}
        self.proc = subprocess.Popen([SHOWCAUSE, "mcp", "--root", str(root), *extra], cwd=root, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.seen: list[dict[str, Any]] = []   # every line the server wrote, in order

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, ident: int) -> dict[str, Any]:
        """The answer to request `ident` (every line before it is kept in `seen`)."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, f"the server closed stdout: {self.close()}"
            message = json.loads(line)
            self.seen.append(message)
            if message.get("id") == ident:
                return message

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        return self.proc.stderr.read().decode()


def opening(cache: Path, root: Path, *extra: str) -> tuple[list[dict[str, Any]], str]:
    """initialize, initialized, tools/list and one tools/call: the answers and stderr."""
    server = Server(cache, root, *extra)
    server.send(INIT)
    init = server.answer(1)
    server.send(INITIALIZED)
    server.send(LIST)
    tools = server.answer(2)
    server.send(CALL)
    call = server.answer(3)
    return [init, tools, call], server.close()


def records(cache: Path) -> list[Path]:
    return sorted((cache / "mcp-replies").glob("*.json"))


def test_the_second_start_answers_its_opening_from_the_record(tmp_path: Path):
    cache = tmp_path / "cache"
    first, err1 = opening(cache, tmp_path)
    assert "replayed" not in err1
    assert len(records(cache)) == 1
    recorded = json.loads(records(cache)[0].read_text())
    assert sorted(json.loads(k)["method"] for k in recorded) == ["initialize", "tools/list"]

    second, err2 = opening(cache, tmp_path)
    assert second == first   # byte for byte what the SDK answered, ids included
    assert "2 opening answer(s) replayed from the record" in err2 and "stale" not in err2
    # The SDK's session went through the replayed initialize: the call after it is answered, not refused.
    assert second[2]["result"]["isError"] is False
    assert second[2]["result"]["structuredContent"]["should_review"] is True


def test_a_stale_record_is_corrected_and_the_client_told(tmp_path: Path):
    cache = tmp_path / "cache"
    first, _ = opening(cache, tmp_path)
    path = records(cache)[0]
    recorded = json.loads(path.read_text())
    key = next(k for k in recorded if json.loads(k)["method"] == "tools/list")
    recorded[key]["tools"] = recorded[key]["tools"][:1]
    path.write_text(json.dumps(recorded))

    server = Server(cache, tmp_path)
    server.send(INIT)
    server.answer(1)
    server.send(INITIALIZED)
    server.send(LIST)
    stale = server.answer(2)
    assert [t["name"] for t in stale["result"]["tools"]] == ["review_change"]
    server.send(CALL)
    server.answer(3)
    err = server.close()
    assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in server.seen
    assert "the recorded tools/list answer was stale" in err
    assert json.loads(path.read_text())[key] == first[1]["result"]


def test_replaying_ends_at_the_first_request_the_record_cannot_answer(tmp_path: Path):
    cache = tmp_path / "cache"
    first, _ = opening(cache, tmp_path)
    server = Server(cache, tmp_path)
    server.send(INIT)
    server.answer(1)
    server.send(INITIALIZED)
    server.send(CALL)      # not replayable: from here on the SDK answers everything
    server.send(LIST)
    tools = server.answer(2)
    if not any(m.get("id") == 3 for m in server.seen):   # its answer may come first
        server.answer(3)
    err = server.close()
    assert tools == first[1]
    assert "1 opening answer(s) replayed from the record" in err


def test_other_arguments_or_another_config_make_another_record(tmp_path: Path):
    config = tmp_path / "showcause.toml"
    config.write_text("[sandbox]\n")
    argv = ["mcp", "--root", str(tmp_path), "--config", str(config)]
    one = relay.record_path(argv)
    assert one is not None and one == relay.record_path(argv)
    # No answer names a root: one record serves every project (and the working directory is not in the key).
    assert relay.record_path(["mcp", "--root", str(tmp_path / "x"), "--config", str(config)]) == one
    assert relay.record_path(["mcp", f"--root={tmp_path}", "--root", "/srv", "--config", str(config)]) == one
    assert relay.record_path([*argv, "--model", "openai:gpt-x"]) != one
    config.write_text("[sandbox]\nisolation = 'bwrap'\n")
    assert relay.record_path(argv) != one
    assert relay.record_path(["mcp", f"--config={tmp_path / 'missing.toml'}"]) is None   # nothing to key on


@pytest.mark.parametrize(("argv", "wanted"), [
    (["mcp"], True), (["mcp", "--root", "/r", "--transport", "stdio"], True), (["mcp", "--transport=stdio"], True),
    (["mcp", "--transport", "streamable-http"], False), (["mcp", "--transport=streamable-http"], False),
    (["mcp", "--help"], False), (["review", "--repo", "."], False), ([], False)])
def test_only_a_stdio_server_gets_the_relay(argv: list[str], wanted: bool):
    assert relay.wants_relay(argv) is wanted


def test_the_sdk_client_gets_the_same_tools_from_a_replayed_discover(tmp_path: Path):
    env = {"SHOWCAUSE_CACHE_DIR": str(tmp_path / "cache"), **{k: os.environ[k] for k in ("PYTHONPATH",)
                                                            if k in os.environ}}
    params = StdioServerParameters(command=SHOWCAUSE, args=["mcp", "--root", str(tmp_path)], cwd=str(tmp_path),
                                   env=env)

    async def tools() -> list[dict[str, Any]]:
        async with Client(params) as client:
            return [t.model_dump(mode="json") for t in (await client.list_tools()).tools]

    cold = anyio.run(tools)
    assert len(records(tmp_path / "cache")) == 1
    warm = anyio.run(tools)
    assert warm == cold and len(warm) == 11
    recorded = json.loads(records(tmp_path / "cache")[0].read_text())
    assert sorted(json.loads(k)["method"] for k in recorded) == ["server/discover", "tools/list"]


def test_setup_records_the_opening_for_any_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from showcause.mcpserver.prewarm import record_opening

    cache = tmp_path / "cache"
    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(cache))
    said = record_opening(tmp_path)
    assert said.startswith("MCP server: opening answers recorded"), said
    recorded = json.loads(records(cache)[0].read_text())
    assert sorted(json.loads(k)["method"] for k in recorded) == sorted(
        ["server/discover", "initialize", *["tools/list", "prompts/list", "resources/templates/list"] * 2])
    assert "already on record" in record_opening(tmp_path)   # idempotent: nothing started again

    # A client set-up never saw (another name and version) gets its opening from the record.
    answers, err = opening(cache, tmp_path)
    assert "2 opening answer(s) replayed from the record" in err and "stale" not in err
    assert answers[0]["result"]["protocolVersion"] == "2025-11-25"
    assert answers[2]["result"]["structuredContent"]["should_review"] is True
    assert len(records(cache)) == 1


def test_the_key_leaves_out_only_the_clients_name():
    one = {"method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                              "clientInfo": {"name": "a", "version": "1"}}}
    two = {"method": "initialize", "params": {**one["params"], "clientInfo": {"name": "b", "version": "9"}}}
    assert relay._key(one) == relay._key(two)
    assert relay._key(one) != relay._key({"method": "initialize", "params": {**one["params"],
                                                                             "protocolVersion": "2025-06-18"}})
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    a = {"method": "tools/list", "params": {"_meta": {**meta, "io.modelcontextprotocol/clientInfo": {"name": "a"}}}}
    assert relay._key(a) == relay._key({"method": "tools/list", "params": {"_meta": meta}})
    assert relay._key(a) != relay._key({"method": "tools/list", "params": {"_meta": {**meta, "cursor": "x"}}})


def test_malformed_and_too_deep_lines_get_json_rpc_errors_and_the_server_keeps_serving(tmp_path: Path):
    server = Server(tmp_path / "cache", tmp_path)
    assert server.proc.stdin is not None and server.proc.stdout is not None
    errors = []
    for raw in (b"this is not json\n", b"[" * 100_000 + b"]" * 100_000 + b"\n", b"[1, 2]\n", b"42\n"):
        server.proc.stdin.write(raw)
        server.proc.stdin.flush()
        errors.append(json.loads(server.proc.stdout.readline()))
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(None, -32700), (None, -32600), (None, -32600),
                                                                (None, -32600)]
    server.send(INIT)
    assert server.answer(1)["result"]["serverInfo"]["name"] == "showcause"
    server.send(INITIALIZED)
    server.send({"jsonrpc": "2.0", "id": 9, "method": "ping"})
    assert server.answer(9)["result"] == {}
    err = server.close()
    assert server.proc.returncode == 0 and "Traceback" not in err, err
