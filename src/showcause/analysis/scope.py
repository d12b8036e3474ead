"""Whether a definition is local to a function (a parameter, a local variable, a nested function).

Renaming a local is invisible outside its function, so it never retires a name project-wide.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from tree_sitter import Node, Tree

from showcause.core.analysis_budget import AnalysisBudget
from showcause.symbols.languages import ParseTimeout, language_for, parse_within

__all__ = ["is_local_definition", "local_lines", "parse_for_scope"]

_FUNCTIONS = {"function_definition", "lambda", "function_declaration", "function_expression", "arrow_function",
              "method_definition", "generator_function_declaration", "generator_function", "function"}
_NAMES = {"identifier", "property_identifier", "shorthand_property_identifier_pattern", "type_identifier",
          "private_property_identifier"}


def parse_for_scope(path: str, data: bytes, budget: AnalysisBudget | None = None) -> Tree | None:
    """The tree `local_lines` reads; a caller asking about several lines of a file parses it once.
    None for a file that is not code, or whose parse gave up (recorded in `budget`)."""
    lang = language_for(path)
    if lang is None:
        return None
    try:
        return parse_within(lang, data, budget.parse_limit(len(data)) if budget is not None else None)
    except ParseTimeout:
        if budget is not None:
            budget.gave_up(path)
        return None


def local_lines(tree: Tree, name: str, lines: Iterable[int]) -> set[int]:
    """The lines (1-based) among `lines` where `name` occurs and every occurrence sits inside a function.

    One walk down the tree for all the lines, visiting only the nodes that span one of them, and carrying
    whether a function encloses each node (walking up from every name cost depth² on deeply nested code).
    """
    rows = sorted({line - 1 for line in lines})
    needle = name.encode()
    seen: dict[int, bool] = {}              # row -> all occurrences so far are local
    stack: list[tuple[Node, bool]] = [(tree.root_node, False)]
    while stack:
        node, local = stack.pop()
        first, last = node.start_point.row, node.end_point.row
        at = bisect_left(rows, first)
        if at == len(rows) or rows[at] > last:
            continue
        if node.type in _NAMES and rows[at] == first and node.text == needle:
            seen[first] = seen.get(first, True) and local
        # A function's own name belongs to the enclosing scope; anything else inside it is local.
        own = node.child_by_field_name("name") if node.type in _FUNCTIONS else None
        inside = node.type in _FUNCTIONS
        stack.extend((child, local or (inside and child != own)) for child in node.children)
    return {row + 1 for row, all_local in seen.items() if all_local}


def is_local_definition(path: str, data: bytes, line: int, name: str, tree: Tree | None = None) -> bool:
    """True when every occurrence of `name` on `line` sits inside a function (so it is not module-level).
    `tree`: `parse_for_scope(path, data)`, when the caller has it."""
    if tree is None:
        tree = parse_for_scope(path, data)
    return tree is not None and line in local_lines(tree, name, [line])
