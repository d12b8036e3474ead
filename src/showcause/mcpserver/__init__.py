"""The MCP server front end (`showcause mcp`): the review and the registry tools for coding agents.

Loaded only by `showcause mcp`, so the CLI's other commands never import the MCP SDK.
"""

from showcause.mcpserver.roots import Roots
from showcause.mcpserver.server import build_server
from showcause.mcpserver.tools import ServerConfig
from showcause.mcpserver.transport import serve

__all__ = ["Roots", "ServerConfig", "build_server", "serve"]
