"""Registers the six built-in tools (DESIGN.md: names and arguments are a public contract)."""

from showcause.tools.find_symbol import FindSymbolTool
from showcause.tools.list_files import ListFilesTool
from showcause.tools.read_file import ReadFileTool
from showcause.tools.registry import register
from showcause.tools.run_test import RunTestTool
from showcause.tools.search import SearchTool
from showcause.tools.typecheck import TypecheckTool

__all__: list[str] = []

for _tool in (SearchTool(), FindSymbolTool(), ReadFileTool(), ListFilesTool(), RunTestTool(), TypecheckTool()):
    register(_tool)
