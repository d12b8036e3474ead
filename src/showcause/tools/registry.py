"""One registry of tools; model and MCP schemas, CLI help and docs are generated from it."""

from __future__ import annotations

from typing import Any

from showcause.tools.base import Tool

__all__ = ["all_tools", "get_tool", "register", "tool_schemas"]

_REGISTRY: dict[str, Tool] = {}


def register(tool: Tool) -> Tool:
    if tool.name in _REGISTRY:
        raise ValueError(f"tool {tool.name!r} registered twice")
    _REGISTRY[tool.name] = tool
    return tool


def _load() -> None:
    if not _REGISTRY:
        from showcause.tools import builtin  # noqa: F401  (registers the six tools on import)


def all_tools() -> list[Tool]:
    _load()
    return list(_REGISTRY.values())


def get_tool(name: str) -> Tool | None:
    _load()
    return _REGISTRY.get(name)


def _clean(schema: dict[str, Any]) -> dict[str, Any]:
    schema = dict(schema)
    schema.pop("title", None)
    props = {k: {kk: vv for kk, vv in v.items() if kk != "title"} for k, v in schema.get("properties", {}).items()}
    schema["properties"] = props
    schema["additionalProperties"] = False
    return schema


def tool_schemas() -> list[dict[str, Any]]:
    """[{name, description, input_schema}] — the neutral form every provider and MCP adapts."""
    return [{"name": t.name, "description": t.description, "input_schema": _clean(t.Arguments.model_json_schema())}
            for t in all_tools()]
