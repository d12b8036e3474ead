"""`showcause mcp`: the MCP server over stdio (what coding agents launch) or streamable HTTP."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from showcause.cli.app import ConfigOpt, IsolationOpt, PythonOpt, app, fail
from showcause.mcpserver.httpguard import is_loopback

__all__: list[str] = []   # the command registers itself on the app

TRANSPORTS = ("stdio", "streamable-http")


@app.command("mcp")
def mcp(
    root: Annotated[list[Path] | None, typer.Option("--root", help="A directory whose repositories the server may "
                                                   "review (repeatable; default: the working directory).")] = None,
    transport: Annotated[str, typer.Option("--transport", help="stdio (default) or streamable-http.")] = "stdio",
    host: Annotated[str, typer.Option("--host", help="Address to listen on (streamable-http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (streamable-http).")] = 8000,
    allow_remote: Annotated[bool, typer.Option("--allow-remote", help="Allow a non-loopback --host (needs "
                                               "--token).")] = False,
    token: Annotated[str | None, typer.Option("--token", envvar="SHOWCAUSE_MCP_TOKEN", help="Bearer token every "
                                              "HTTP request must carry (env SHOWCAUSE_MCP_TOKEN).")] = None,
    allow_origin: Annotated[list[str] | None, typer.Option("--allow-origin", help="A browser Origin allowed "
                                                          "besides the server's own address, as scheme://host:port "
                                                          "(repeatable; streamable-http).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="provider:model for review_change (default: the "
                                              "mechanical judge, no model).")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible server URL.")] = None,
    quorum: Annotated[Path | None, typer.Option("--quorum", help="A quorum configuration (the predecessor's JSON, "
                                                "or a TOML \\[quorum] table): serves peer_review, query_peer, "
                                                "list_peers and count_tokens.")] = None,
    config: ConfigOpt = None, isolation: IsolationOpt = None, python: PythonOpt = None,
) -> None:
    """Serve review_change, the tools, review_decision, should_review and record_outcome to MCP clients.

    Logs go to stderr; stdout is the protocol's."""
    if transport not in TRANSPORTS:
        fail(f"unknown --transport {transport!r}; use stdio or streamable-http")
    if not is_loopback(host) and not (allow_remote and token):
        fail(f"--host {host} is not a loopback address: it needs --allow-remote and --token")
    if not 0 <= port <= 65535:
        fail(f"--port {port}: not a port number")
    for origin in allow_origin or []:
        if not re.fullmatch(r"https?://[^/\s]+", origin):
            fail(f"--allow-origin {origin!r}: give scheme://host[:port], nothing after it")
    if config is not None and not config.is_file():
        fail(f"{config}: no such config file")
    # The SDK is imported here, not at the top: the CLI's other commands never pay for it.
    from showcause.core.errors import ShowcauseError, exit_status
    from showcause.mcpserver import Roots, ServerConfig, serve
    from showcause.service.quorum import load_quorum

    try:
        roots = Roots.of(root or [Path.cwd()])
        peers = load_quorum(quorum) if quorum is not None else None   # a bad file: exit 2 now
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    for warning in peers.config.warnings if peers is not None else ():
        typer.echo(f"showcause: warning: {warning}", err=True)
    cfg = ServerConfig(roots=roots, model=model, base_url=base_url, config=config, isolation=isolation,
                       python=python, quorum=peers, quorum_file=quorum)
    serve(cfg, transport=transport, host=host, port=port, token=token, allow_origins=tuple(allow_origin or ()))
