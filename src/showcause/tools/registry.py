"""One registry of tools; model and MCP schemas, `showcause tools list` and docs/tools.md are generated from it.

Plugins add tools with `register` or an entry point in group `showcause.tools` (name = the tool's name,
value = ``module:ToolClass``, instantiated with no arguments, or an instance).
"""

from __future__ import annotations

import json
from typing import Any

from showcause.core.registry import Registry
from showcause.tools.base import Tool

__all__ = ["BUILTIN_TOOLS", "ENTRY_POINT_GROUP", "REVIEW_TOOLS", "TOOLS", "all_tools", "get_tool", "register",
           "schemas_markdown", "tool_schemas", "tools_markdown", "tools_text"]

ENTRY_POINT_GROUP = "showcause.tools"

# docs/tools.md: the names and their arguments are a public contract; this order is the order models see.
_BUILTINS = {
    "search": "showcause.tools.search:SearchTool",
    "find_symbol": "showcause.tools.find_symbol:FindSymbolTool",
    "read_file": "showcause.tools.read_file:ReadFileTool",
    "list_files": "showcause.tools.list_files:ListFilesTool",
    "run_test": "showcause.tools.run_test:RunTestTool",
    "typecheck": "showcause.tools.typecheck:TypecheckTool",
    "run_probe": "showcause.tools.run_probe:RunProbeTool",
}

BUILTIN_TOOLS: tuple[str, ...] = tuple(_BUILTINS)
# The tools the built-in review modes give their judges: named here, not taken from the registry, so that a
# tool added to the registry reaches a mode only when the mode is changed to use it.
REVIEW_TOOLS: tuple[str, ...] = ("search", "find_symbol", "read_file", "list_files", "run_test", "typecheck")


def _adapt(name: str, loaded: object) -> Tool:
    tool = loaded() if isinstance(loaded, type) else loaded
    if not isinstance(tool, Tool) or not isinstance(getattr(tool, "read_only", None), bool):
        raise TypeError(f"{loaded!r} is not a tool (name, description, Arguments, read_only, run)")
    if tool.name != name:
        raise ValueError(f"the tool registered as {name!r} calls itself {tool.name!r}")
    return tool


TOOLS: Registry[Tool] = Registry("tool", ENTRY_POINT_GROUP, _BUILTINS, _adapt)


def register(tool: Tool) -> Tool:
    """Add a tool under its own name; a taken name is refused (`DuplicateName`)."""
    TOOLS.register(tool.name, tool)
    return tool


def all_tools() -> list[Tool]:
    return TOOLS.entries()


def get_tool(name: str) -> Tool | None:
    return TOOLS.get(name)


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


def tools_text() -> str:
    """What `showcause tools list` prints: each tool's arguments (`?`: optional), whether it only reads."""
    out = []
    for tool, schema in zip(all_tools(), tool_schemas(), strict=True):
        props: dict[str, Any] = schema["input_schema"].get("properties", {})
        required = set(schema["input_schema"].get("required", []))
        args = ", ".join(f"{k}{'' if k in required else '?'}" for k in props) or "no arguments"
        flag = "read-only" if tool.read_only else "runs repository code in the sandbox"
        out.append(f"{schema['name']}({args}) [{flag}]\n    {schema['description']}\n")
    return "".join(out)


def schemas_markdown() -> str:
    """The schemas models and MCP clients are given, as a JSON block (docs/tools.md, generated)."""
    return "```json\n" + json.dumps(tool_schemas(), indent=2, ensure_ascii=False) + "\n```\n"


def tools_markdown() -> str:
    """Each tool's section of docs/tools.md, generated from the registry so the docs cannot drift from the
    schemas (`showcause tools list --markdown` prints it)."""
    out: list[str] = []
    for tool, schema in zip(all_tools(), tool_schemas(), strict=True):
        reads = "Read-only: it only reads the tree." if tool.read_only else \
            "Not read-only: it runs the repository's code, in the sandbox."
        out += [f"## `{schema['name']}`", "", schema["description"], "", reads, ""]
        props: dict[str, Any] = schema["input_schema"].get("properties", {})
        required = set(schema["input_schema"].get("required", []))
        if not props:
            out += ["No arguments.", ""]
            continue
        out += ["| argument | type | required | default | description |", "|---|---|---|---|---|"]
        for name, spec in props.items():
            kind = spec.get("type") or " or ".join(str(a.get("type")) for a in spec.get("anyOf", [])) or "enum"
            if "enum" in spec:
                kind = " / ".join(f"`{v}`" for v in spec["enum"])
            default = "" if name in required else f"`{json.dumps(spec.get('default'))}`"
            out.append(f"| `{name}` | {kind} | {'yes' if name in required else 'no'} | {default} | "
                       f"{spec.get('description', '')} |")
        out.append("")
    return "\n".join(out)
