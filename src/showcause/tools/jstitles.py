"""The title paths of a JavaScript or TypeScript test file's tests, read with tree-sitter as data: each
`it`/`test`/`specify` call with a literal title, inside the literal titles of its `describe`/`suite`/`context`
calls. A `node:test` test's subtests (`t.test(…)` on the context its callback is given) are tests under its
title, and a test with subtests is a suite, as node reports it. A title made at run time (a template with
substitutions, a variable, `.each`) means the file cannot say which tests it has, and the answer is None."""

from __future__ import annotations

from tree_sitter import Node

from showcause.symbols.languages import ParseTimeout, language_for, parse_within
from showcause.symbols.specifiers import string_literal

__all__ = ["title_parts", "title_paths"]

_TESTS = frozenset({"it", "test", "specify", "xit", "fit"})
_SUITES = frozenset({"describe", "suite", "context", "xdescribe", "fdescribe"})
_MODIFIERS = frozenset({"only", "skip", "todo", "concurrent", "failing", "sequential", "shuffle"})
_PARSE_SECONDS = 2.0


def _chain(call: Node) -> tuple[str, list[str]] | None:
    """A call's callee as (the identifier it starts from, the properties after it, last first): `it.skip.each`
    is ("it", ["each", "skip"]); None when it does not start from an identifier."""
    fn = call.child_by_field_name("function")
    parts: list[str] = []
    while fn is not None and fn.type == "member_expression":
        prop = fn.child_by_field_name("property")
        parts.append(prop.text.decode("utf-8", "replace") if prop is not None and prop.text else "")
        fn = fn.child_by_field_name("object")
    if fn is None or fn.type != "identifier" or not fn.text:
        return None
    return fn.text.decode("utf-8", "replace"), parts


def _callee(call: Node) -> tuple[str, bool] | None:
    """(`it`/`describe`…, whether a run-time form like `.each`) of a call, or None for any other call."""
    chain = _chain(call)
    if chain is None or chain[0] not in _TESTS | _SUITES:
        return None
    return chain[0], any(p not in _MODIFIERS for p in chain[1])


def _subtest(call: Node, context: str | None) -> bool | None:
    """Whether `call` is `context.test(…)` (a subtest; True when a run-time form like `.each`), else None."""
    chain = _chain(call) if context is not None else None
    if chain is None or chain[0] != context or not chain[1] or chain[1][-1] != "test":
        return None
    return any(p not in _MODIFIERS for p in chain[1][:-1])


def _context(args: Node | None) -> str | None:
    """The name a test's callback gives its context (`t` in `test('x', async (t) => …)`), if any."""
    for arg in reversed(args.named_children if args is not None else []):
        if arg.type in ("arrow_function", "function_expression", "function"):
            params = arg.child_by_field_name("parameters") or arg.child_by_field_name("parameter")
            first = params if params is not None and params.type == "identifier" else (
                params.named_children[0] if params is not None and params.named_children else None)
            if first is not None and first.type == "required_parameter":   # TypeScript: `(t: TestContext)`
                first = first.child_by_field_name("pattern")
            return first.text.decode("utf-8", "replace") if first is not None and first.type == "identifier" \
                and first.text else None
    return None


def title_paths(path: str, source: bytes) -> set[tuple[str, ...]] | None:
    """Every test's title path in the file; None where the file does not parse in time or a title is made at
    run time."""
    parts = title_parts(path, source)
    return None if parts is None or parts[1] else parts[0]


def title_parts(path: str, source: bytes) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]] | None:
    """(the title paths of the tests whose titles are literals, the title paths under which a test or suite is
    made at run time: any test below one of those may exist); None where the file does not parse in time."""
    language = language_for(path)
    if language not in ("javascript", "typescript", "tsx"):
        return None
    try:
        tree = parse_within(language, source, _PARSE_SECONDS)
    except ParseTimeout:
        return None
    found: set[tuple[str, ...]] = set()
    made: set[tuple[str, ...]] = set()
    # (node, the titles around it, the context name of the test it is in)
    stack: list[tuple[Node, tuple[str, ...], str | None]] = [(tree.root_node, (), None)]
    while stack:   # explicit: a deeply nested file must not exhaust Python's recursion
        node, titles, context = stack.pop()
        if node.type == "call_expression":
            callee = _callee(node)
            sub = _subtest(node, context)
            kind = callee[0] if callee is not None else "test" if sub is not None else None
            dynamic = callee[1] if callee is not None else bool(sub)
            if kind is not None:
                args = node.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children else None
                title = string_literal(first) if first is not None and not dynamic else None
                if title is None:   # made at run time: anything may be below `titles`; its body is not read
                    made.add(titles)
                    continue
                titles = (*titles, title)
                if kind in _TESTS:
                    found.add(titles)
                    context = _context(args)
        stack.extend((child, titles, context) for child in node.named_children)
    # A test with subtests is a suite: only its subtests are tests (a jest test never holds another).
    leaves = {p for p in found if p not in made and not any(len(q) > len(p) and q[: len(p)] == p for q in found)}
    return leaves, made
