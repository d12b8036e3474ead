"""The title paths of a JavaScript or TypeScript test file's tests, read with tree-sitter as data: each
`it`/`test`/`specify` call with a literal title, inside the literal titles of its `describe`/`suite`/`context`
calls. A title made at run time (a template with substitutions, a variable, `.each`) means the file cannot
say which tests it has, and the answer is None."""

from __future__ import annotations

from tree_sitter import Node

from showcause.symbols.languages import ParseTimeout, language_for, parse_within
from showcause.symbols.specifiers import string_literal

__all__ = ["title_paths"]

_TESTS = frozenset({"it", "test", "specify", "xit", "fit"})
_SUITES = frozenset({"describe", "suite", "context", "xdescribe", "fdescribe"})
_MODIFIERS = frozenset({"only", "skip", "todo", "concurrent", "failing", "sequential", "shuffle"})
_PARSE_SECONDS = 2.0


def _callee(call: Node) -> tuple[str, bool] | None:
    """(`it`/`describe`…, whether a run-time form like `.each`) of a call, or None for any other call."""
    fn = call.child_by_field_name("function")
    parts: list[str] = []
    while fn is not None and fn.type == "member_expression":
        prop = fn.child_by_field_name("property")
        parts.append(prop.text.decode("utf-8", "replace") if prop is not None and prop.text else "")
        fn = fn.child_by_field_name("object")
    if fn is None or fn.type != "identifier" or not fn.text:
        return None
    name = fn.text.decode("utf-8", "replace")
    if name not in _TESTS | _SUITES:
        return None
    return name, any(p not in _MODIFIERS for p in parts)


def title_paths(path: str, source: bytes) -> set[tuple[str, ...]] | None:
    """Every test's title path in the file; None where the file does not parse in time or a title is made at
    run time."""
    language = language_for(path)
    if language not in ("javascript", "typescript", "tsx"):
        return None
    try:
        tree = parse_within(language, source, _PARSE_SECONDS)
    except ParseTimeout:
        return None
    found: set[tuple[str, ...]] = set()
    stack: list[tuple[Node, tuple[str, ...]]] = [(tree.root_node, ())]
    while stack:   # explicit: a deeply nested file must not exhaust Python's recursion
        node, titles = stack.pop()
        callee = _callee(node) if node.type == "call_expression" else None
        if callee is not None:
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            title = string_literal(first) if first is not None and not callee[1] else None
            if title is None:
                return None
            if callee[0] in _TESTS:
                found.add((*titles, title))
                continue
            titles = (*titles, title)
        stack.extend((child, titles) for child in node.named_children)
    return found
