"""Serving the server: stdio, or streamable HTTP on a socket of our own (port 0 picks a free one and says so).

Over HTTP every request must name the bound address in `Host` and come from an allowed `Origin`
(httpguard.py), and a bearer token, when given, guards every request; `showcause mcp` demands one for a
non-loopback address. Everything the server says about itself goes to stderr: over stdio, stdout is the protocol's.
"""

from __future__ import annotations

import hmac
import socket
import sys
from typing import Any

import anyio

from showcause.mcpserver import relay
from showcause.mcpserver.httpguard import HostOriginGuard
from showcause.mcpserver.server import build_server
from showcause.mcpserver.tools import ServerConfig

__all__ = ["serve"]

ASGIApp = Any   # starlette's (scope, receive, send) callable; its types stay in the SDK


class _BearerToken:
    """Refuses (401) every HTTP request without `Authorization: Bearer <token>`, compared in constant time."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": b"showcause mcp: a bearer token is required\n"})
                return
        await self.app(scope, receive, send)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


async def _serve_http(cfg: ServerConfig, host: str, port: int, token: str | None,
                      allow_origins: tuple[str, ...]) -> None:
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    sock = _listen(host, port)
    guard = HostOriginGuard(host, sock.getsockname()[1], allow_origins)   # the real port, also for port 0
    # The SDK's own check gets the same lists (without them it checks only three loopback names).
    security = TransportSecuritySettings(allowed_hosts=sorted(guard.hosts), allowed_origins=sorted(guard.origins))
    app: ASGIApp = build_server(cfg).streamable_http_app(host=host, transport_security=security)
    if token:
        app = _BearerToken(app, token)
    app = guard.wrap(app)
    shown = f"[{host}]" if ":" in host else host
    print(f"showcause mcp: serving streamable HTTP on http://{shown}:{sock.getsockname()[1]}/mcp", file=sys.stderr,
          flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    await server.serve(sockets=[sock])


def serve(cfg: ServerConfig, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8000,
          token: str | None = None, allow_origins: tuple[str, ...] = ()) -> None:
    """Run until the client goes away (stdio) or the process is stopped (HTTP)."""
    if transport == "stdio":
        print(f"showcause mcp: serving stdio; roots {', '.join(map(str, cfg.roots.dirs))}", file=sys.stderr,
              flush=True)
        opening = relay.current() or relay.start(sys.argv[1:])   # the CLI's main started it unless called in-process
        try:
            anyio.run(build_server(cfg).run_stdio_async)
        finally:
            opening.finish()
    else:
        anyio.run(_serve_http, cfg, host, port, token, allow_origins)
