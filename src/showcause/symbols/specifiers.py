"""The module specifiers of a file, from the captures of the definitions query: what its import statements
name, and what its run-time imports (`importlib.import_module`, `__import__`, `require`, `import()`,
`pytest_plugins`) name when that is a literal, else DYNAMIC_IMPORT (unknown to the import graph)."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

__all__ = ["DYNAMIC_IMPORT", "module_specifiers", "runtime_specifiers", "string_literal"]


def module_specifiers(nodes: Iterable[Node] | None, language: str) -> tuple[str, ...]:
    specs: dict[str, None] = {}
    for node in sorted(nodes or (), key=lambda n: n.start_byte):
        text = (node.text or b"").decode("utf-8", "replace")
        if language == "python":
            text = "".join(text.split())
        if text:
            specs[text] = None
    return tuple(specs)


# The specifier of a run-time import whose module is computed: the graph cannot tell what it reaches.
DYNAMIC_IMPORT = "?"


def string_literal(node: Node) -> str | None:
    """The text of a plain string literal, escapes read as a runner prints them (`\\'` is `'`); None for
    anything else (an interpolation, a template substitution, a concatenation, a name)."""
    if node.type not in ("string", "template_string") or any(
            c.type in ("interpolation", "template_substitution") for c in node.named_children):
        return None
    parts = [c for c in node.named_children if c.type in ("string_content", "string_fragment", "escape_sequence")]
    return "".join(_unescaped(c.text or b"") if c.type == "escape_sequence"
                   else (c.text or b"").decode("utf-8", "replace") for c in parts)


def _unescaped(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")   # a rarer escape (`\\u…`) stays as written
    return {"n": "\n", "t": "\t"}.get(text[1:], text[1:]) if len(text) == 2 else text


def runtime_specifiers(nodes: Iterable[Node] | None, language: str) -> tuple[str, ...]:
    """What run-time imports name: a literal module, or DYNAMIC_IMPORT where the name is computed (a variable,
    an f-string) or relative to a package given apart (`import_module(".x", pkg)`) -- unknown to the graph."""
    specs: dict[str, None] = {}
    for node in sorted(nodes or (), key=lambda n: n.start_byte):
        items = node.named_children if node.type in ("list", "tuple", "array") else [node]
        for item in items:
            text = string_literal(item)
            if language == "python" and text is not None and text.startswith("."):
                text = None
            if text is not None and text.strip() == text and text:
                specs[text] = None
            elif item.type != "comment":
                specs[DYNAMIC_IMPORT] = None
    return tuple(specs)
