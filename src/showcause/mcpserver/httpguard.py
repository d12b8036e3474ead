"""DNS-rebinding protection for the streamable HTTP transport, at every bind address.

A web page can make a browser send requests to any address it resolves a name of its own to: with a
rebinding name the browser believes it talks to `rebind.evil.example`, and the request carries that `Host`
(and the page's `Origin`). So every request must name, in `Host`, exactly the address and port the server
listens on (or a loopback name of that port, when it listens on loopback), and an `Origin`, when a browser
sends one, must be that same place or one the user allowed (`--allow-origin`). The SDK's own check covers only
127.0.0.1, localhost and ::1; this one covers every address, 127.0.0.2 and a remote bind included.
"""

from __future__ import annotations

import ipaddress
from typing import Any

__all__ = ["HostOriginGuard", "is_loopback"]

ASGIApp = Any


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _authority(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class HostOriginGuard:
    """421 for a request whose `Host` is not the bound place, 403 for an `Origin` that is not allowed."""

    def __init__(self, host: str, port: int, allow_origins: tuple[str, ...] = ()) -> None:
        names = {host.lower()}
        if is_loopback(host):
            names |= {"127.0.0.1", "localhost", "::1"}
        self.app: ASGIApp = None
        self.hosts = {_authority(n, port) for n in names}
        if port == 80:   # a client may leave the default port out
            self.hosts |= {f"[{n}]" if ":" in n else n for n in names}
        self.origins = {f"http://{h}" for h in self.hosts} | {o.lower().rstrip("/") for o in allow_origins}

    def wrap(self, app: ASGIApp) -> HostOriginGuard:
        self.app = app
        return self

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1").lower()
            origin = headers.get(b"origin")
            if host not in self.hosts:
                await _refuse(send, 421, "showcause mcp: this Host is not the address the server listens on\n")
                return
            if origin is not None and origin.decode("latin-1").lower().rstrip("/") not in self.origins:
                await _refuse(send, 403, "showcause mcp: this Origin is not allowed (see --allow-origin)\n")
                return
        await self.app(scope, receive, send)


async def _refuse(send: Any, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": text.encode()})
