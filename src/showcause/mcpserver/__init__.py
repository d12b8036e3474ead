"""The MCP server front end (`showcause mcp`): the review and the registry tools for coding agents.

Loaded only by `showcause mcp`, so the CLI's other commands never import the MCP SDK. The names load on
first use (PEP 562): the stdio relay (mcpserver/relay.py) starts before the SDK is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from showcause.mcpserver.roots import Roots
    from showcause.mcpserver.server import build_server
    from showcause.mcpserver.tools import ServerConfig
    from showcause.mcpserver.transport import serve

__all__ = ["Roots", "ServerConfig", "build_server", "serve"]

_HOMES = {"Roots": "roots", "ServerConfig": "tools", "build_server": "server", "serve": "transport"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'showcause.mcpserver' has no attribute {name!r}")
    return getattr(importlib.import_module(f"showcause.mcpserver.{_HOMES[name]}"), name)
