"""Record the stdio server's opening answers ahead of an agent's first start (`showcause setup`).

Why: the relay (mcpserver/relay.py) answers a session's opening from the SDK's answers at an earlier start,
so only the very first start after an install pays the SDK's import (about 2.3 s to `tools/list`). Set-up
starts the server itself, with the arguments an agent's configuration uses (`showcause mcp`), once for each
handshake clients send today: the SDK client's `server/discover` (protocol 2026-07-28) and the 2025-11-25
`initialize`. Each start goes through the same relay, so what is recorded is exactly what the SDK answered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from showcause.mcpserver.relay import record_path

__all__ = ["record_opening"]

_ARGV = ["mcp"]
_TIMEOUT_S = 60
_RAW_OPENING = [   # a 2025-11-25 client: its handshake, then the lists an agent asks for before any call
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "showcause-setup", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "id": 3, "method": "prompts/list", "params": {}},
    {"jsonrpc": "2.0", "id": 4, "method": "resources/templates/list", "params": {}},
]


def _command() -> list[str]:
    # sys.executable -m showcause: the interpreter an installed `showcause` script runs, and argv == ["mcp"],
    # so the record's key is the one an agent's `showcause mcp` computes.
    return [sys.executable, "-m", "showcause", *_ARGV]


def _raw_opening(cwd: Path) -> None:
    """One server, spoken to in the 2025-11-25 protocol's JSON lines until its last list is answered."""
    lines = "".join(json.dumps(m) + "\n" for m in _RAW_OPENING)
    with subprocess.Popen(_command(), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=os.environ.copy()) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(lines.encode())
        proc.stdin.flush()
        last = max(int(m["id"]) for m in _RAW_OPENING if "id" in m)
        for line in proc.stdout:   # the answers come in order; stop reading at the last one
            if json.loads(line).get("id") == last:
                break
        proc.stdin.close()
        proc.wait(timeout=_TIMEOUT_S)


async def _sdk_opening(cwd: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = _command()
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd), env=os.environ.copy())
    with open(os.devnull, "w", encoding="utf-8") as quiet:   # the server's stderr is not set-up's output
        async with Client(stdio_client(params, errlog=quiet)) as client:
            await client.list_tools()
            await client.list_prompts()
            await client.list_resource_templates()


def record_opening(cwd: Path | None = None) -> str:
    """Start `showcause mcp` for each handshake so its opening answers are on record; a line saying what was done.

    Never raises for a server that cannot start: the agent's first start then records them instead.
    """
    path = record_path(_ARGV)
    if path is None:
        return "MCP server: no record (a configuration file cannot be read)"
    if path.exists():
        return f"MCP server: opening answers already on record ({path})"
    import anyio

    where = cwd or Path.home()
    try:
        anyio.run(_sdk_opening, where)
        _raw_opening(where)
    except (OSError, ValueError, RuntimeError, subprocess.SubprocessError, ExceptionGroup) as exc:
        return f"MCP server: could not record its opening answers ({type(exc).__name__}: {exc})"
    if not path.exists():
        return "MCP server: started, but nothing was recorded"
    return f"MCP server: opening answers recorded ({path}): a first tools/list answers in ~0.2 s"
