"""Whether a definition is local to a function (a parameter, a local variable, a nested function).

Renaming a local is invisible outside its function, so it never retires a name project-wide.
"""

from __future__ import annotations

from tree_sitter import Node, Tree

from showcause.symbols.languages import get_parser, language_for

__all__ = ["is_local_definition", "parse_for_scope"]

_FUNCTIONS = {"function_definition", "lambda", "function_declaration", "function_expression", "arrow_function",
              "method_definition", "generator_function_declaration", "generator_function", "function"}
_NAMES = {"identifier", "property_identifier", "shorthand_property_identifier_pattern", "type_identifier",
          "private_property_identifier"}


def _nodes_on_row(root: Node, row: int, name: bytes) -> list[Node]:
    found, stack = [], [root]
    while stack:
        n = stack.pop()
        if n.start_point.row > row or n.end_point.row < row:
            continue
        if n.type in _NAMES and n.text == name and n.start_point.row == row:
            found.append(n)
        stack.extend(n.children)
    return found


def _is_local(node: Node) -> bool:
    child, parent = node, node.parent
    while parent is not None:
        # A function's own name belongs to the enclosing scope; anything else inside it is local.
        if parent.type in _FUNCTIONS and parent.child_by_field_name("name") != child:
            return True
        child, parent = parent, parent.parent
    return False


def parse_for_scope(path: str, data: bytes) -> Tree | None:
    """The tree `is_local_definition` reads; a caller asking about several lines of a file parses it once."""
    lang = language_for(path)
    return None if lang is None else get_parser(lang).parse(data)


def is_local_definition(path: str, data: bytes, line: int, name: str, tree: Tree | None = None) -> bool:
    """True when every occurrence of `name` on `line` sits inside a function (so it is not module-level).
    `tree`: `parse_for_scope(path, data)`, when the caller has it."""
    if tree is None:
        tree = parse_for_scope(path, data)
    if tree is None:
        return False
    nodes = _nodes_on_row(tree.root_node, line - 1, name.encode())
    return bool(nodes) and all(_is_local(n) for n in nodes)
