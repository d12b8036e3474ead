"""`showcause mcp` as agents start it: a real subprocess over stdio, and streamable HTTP on 127.0.0.1 (with and
without a bearer token), through the SDK's own client; its command-line refusals; and the result cap."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from blind_samples import SHOWCAUSE
from builders import git_repo
from showcause.mcpserver.cap import MAX_RESULT_CHARS, cap_record, cap_review, size

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def broken_repo(root: Path) -> Path:
    r = git_repo(root / "r", [{"calc.py": CALC, "test_calc.py": TEST}])
    (r / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    return r


async def _session(client: Client, repo: Path) -> tuple[list[str], Any, Any]:
    names = [t.name for t in (await client.list_tools()).tools]
    review = await client.call_tool("review_change", {"repo": str(repo)})
    outside = await client.call_tool("list_files", {"repo": "/etc"})
    return names, review, outside


def _check(names: list[str], review: Any, outside: Any) -> None:
    assert names[0] == "review_change" and "record_outcome" in names and len(names) == 11
    assert review.is_error is False and review.structured_content["verdict"] == "MODIFY"
    assert outside.is_error is True and json.loads(outside.content[0].text)["error"]["code"] == "INVALID_INPUT"


def test_stdio_subprocess(tmp_path: Path):
    repo = broken_repo(tmp_path)
    # The SDK starts servers with a minimal environment; the suite's cache folder (and a source path) go along.
    env = {k: os.environ[k] for k in ("SHOWCAUSE_CACHE_DIR", "PYTHONPATH") if k in os.environ}
    params = StdioServerParameters(command=SHOWCAUSE, args=["mcp", "--root", str(tmp_path)], cwd=str(tmp_path),
                                   env=env)

    async def go() -> tuple[list[str], Any, Any]:
        async with Client(params) as client:
            return await _session(client, repo)

    _check(*anyio.run(go))


@pytest.fixture
def http_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, Path]]:
    repo = broken_repo(tmp_path)
    extra: list[str] = getattr(request, "param", [])
    proc = subprocess.Popen([SHOWCAUSE, "mcp", "--transport", "streamable-http", "--port", "0", "--root",
                             str(tmp_path), *extra], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"on (http://127\.0\.0\.1:\d+/mcp)", line)
        assert found, line
        yield found.group(1), repo
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _over_http(url: str, repo: Path, headers: dict[str, str] | None = None) -> tuple[list[str], Any, Any]:
    async def go() -> tuple[list[str], Any, Any]:
        async with create_mcp_http_client(headers=headers) as http, \
                Client(streamable_http_client(url, http_client=http)) as client:
            return await _session(client, repo)
    return anyio.run(go)


def test_streamable_http_on_loopback(http_server: tuple[str, Path]):
    _check(*_over_http(*http_server))


@pytest.mark.parametrize("http_server", [["--token", "s3cret-token"]], indirect=True)
def test_streamable_http_with_a_bearer_token(http_server: tuple[str, Path]):
    url, repo = http_server
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
        assert refused.status_code == 401 and "s3cret" not in refused.text
    _check(*_over_http(url, repo, {"Authorization": "Bearer s3cret-token"}))


@pytest.mark.parametrize(("args", "message"), [
    (["--transport", "sse"], "unknown --transport 'sse'; use stdio or streamable-http"),
    (["--transport", "streamable-http", "--host", "0.0.0.0"],
     "--host 0.0.0.0 is not a loopback address: it needs --allow-remote and --token"),
    (["--transport", "streamable-http", "--host", "0.0.0.0", "--allow-remote"],
     "--host 0.0.0.0 is not a loopback address: it needs --allow-remote and --token"),
    (["--port", "70000"], "--port 70000: not a port number"),
    (["--root", "/no/such/dir"], "--root /no/such/dir: no such directory"),
])
def test_the_command_refuses_bad_options_with_exit_2(args: list[str], message: str):
    proc = subprocess.run([SHOWCAUSE, "mcp", *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"showcause: error: {message}\n"


def _claim(i: int, status: str, text: str) -> dict[str, Any]:
    return {"claim": f"claim {i} {text}", "verdict": "MODIFY" if status == "validated" else "WARNING",
            "model_verdict": "MODIFY", "gate": {"status": status, "artifacts": []}}


def test_a_long_review_keeps_its_verdict_and_validated_claims_whole():
    long = "x" * 5_000
    doc = {"verdict": "MODIFY", "model_verdict": "MODIFY", "summary": "s",
           "claims": [_claim(0, "validated", long)] + [_claim(i, "unconfirmed", long) for i in range(1, 40)],
           "tool_calls": [{"id": f"T{i}", "tool": "run_test", "args": {}, "ok": True, "artifacts": [], "ms": 1,
                           "output": long * 4} for i in range(30)],
           "meta": {"mode": "mechanical", "isolation": "bwrap", "review_id": "abc"}}
    assert size(doc) > 10 * MAX_RESULT_CHARS
    out = cap_review(doc, "showcause://review/abc")
    assert size(out) <= MAX_RESULT_CHARS and out["verdict"] == "MODIFY"
    assert out["claims"][0] == doc["claims"][0]          # the validated claim, whole
    assert out["meta"]["truncated"]["resource"] == "showcause://review/abc"
    assert out["meta"]["truncated"]["cut"][0] == "tool call output"
    assert size(doc) > 10 * MAX_RESULT_CHARS and len(doc["tool_calls"][0]["output"]) == 20_000   # not mutated
    small = {**doc, "claims": doc["claims"][:1], "tool_calls": []}
    assert cap_review(small, "u") is small


def test_a_tool_record_that_echoes_a_huge_argument_is_cut():
    record = {"id": "T1", "tool": "search", "args": {"pattern": "x" * 200_000}, "ok": True, "artifacts": [], "ms": 1,
              "output": "T1 search: " + "y" * 100_000}
    out = cap_record(record)
    assert size(out) <= MAX_RESULT_CHARS // 2
    assert out["args"]["pattern"] == "x" * 200 + " [… 199800 characters cut]"
    assert out["output"].startswith("T1 search: y")
    assert cap_record({**record, "args": {}, "output": "short"})["output"] == "short"


_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
_ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.mark.parametrize("host", ["127.0.0.2", "127.0.0.1"])
def test_host_and_origin_are_checked_on_every_bind_address(tmp_path: Path, host: str):
    """DNS rebinding: a page's request carries its own name in Host and Origin (docs/mcp.md)."""
    proc = subprocess.Popen([SHOWCAUSE, "mcp", "--transport", "streamable-http", "--host", host, "--port", "0",
                             "--root", str(tmp_path), "--allow-origin", "http://tool.example:3000"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(rf"on (http://{re.escape(host)}:(\d+)/mcp)", line)
        assert found, line
        url, port = found.group(1), found.group(2)
        statuses = [httpx.post(url, json=_INIT, headers={**_ACCEPT, **extra}, timeout=30).status_code for extra in (
            {"Host": "rebind.evil.example"}, {"Host": f"rebind.evil.example:{port}"},
            {"Origin": "http://rebind.evil.example"}, {"Origin": f"http://{host}:{int(port) + 1}"},
            {}, {"Origin": f"http://{host}:{port}"}, {"Origin": "http://tool.example:3000"},
            {"Host": f"localhost:{port}"})]
        assert statuses == [421, 421, 403, 403, 200, 200, 200, 200]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
