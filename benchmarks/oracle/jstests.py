"""Test deletions and renames in JavaScript and TypeScript test files: one `it(…)`/`test(…)` call with a literal
title removed, or its title changed, found by tree-sitter (showcause's own grammars, used here as data)."""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Language, Node, Parser

__all__ = ["JsTest", "js_tests", "removes_js"]

_CALLS = {"it", "test", "specify"}
_SUITES = {"describe", "suite", "context"}


@dataclass(frozen=True)
class JsTest:
    file: str
    titles: tuple[str, ...]   # the describe blocks around it, then its own title
    start: int                # byte range of its statement
    end: int
    title_start: int          # byte range of its title's text
    title_end: int
    line: int


def _language(path: str) -> Language:
    if path.endswith((".ts", ".mts", ".cts")):
        import tree_sitter_typescript

        return Language(tree_sitter_typescript.language_typescript())
    import tree_sitter_javascript

    return Language(tree_sitter_javascript.language())


def _title(call: Node) -> tuple[str, Node] | None:
    """(callee name, title string node) of `it('title', …)`, `test.only('title', …)`; None for anything else."""
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if fn is None or args is None or not args.named_children:
        return None
    name = fn.text.decode() if fn.type == "identifier" and fn.text else ""
    if fn.type == "member_expression" and (obj := fn.child_by_field_name("object")) is not None and obj.text:
        name = obj.text.decode()
    first = args.named_children[0]
    fragments = [c for c in first.named_children if c.type == "string_fragment"]
    if first.type != "string" or len(fragments) != 1:
        return None
    return name, fragments[0]


def _walk(node: Node, file: str, titles: tuple[str, ...], out: list[JsTest]) -> None:
    for child in node.named_children:
        call = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
        found = _title(call) if call is not None and call.type == "call_expression" else None
        if found and found[0] in _CALLS:
            text = found[1].text.decode() if found[1].text else ""
            out.append(JsTest(file, (*titles, text), child.start_byte, child.end_byte, found[1].start_byte,
                              found[1].end_byte, child.start_point[0] + 1))
        elif found and found[0] in _SUITES:
            _walk(call, file, (*titles, found[1].text.decode() if found[1].text else ""), out)  # type: ignore[arg-type]
        else:
            _walk(child, file, titles, out)


def js_tests(repo: Path, dirs: tuple[str, ...]) -> list[JsTest]:
    """Every test call with a literal title in the test files under `dirs` (or the files they name)."""
    files: set[str] = set()
    for d in dirs:
        if d.endswith((".js", ".ts", ".mjs", ".cjs")):
            files.add(d)
            continue
        for ext in ("js", "mjs", "cjs", "ts"):
            files.update(glob.glob(f"{d.rstrip('/')}/**/*.{ext}", root_dir=repo, recursive=True))
    out: list[JsTest] = []
    for file in sorted(files):
        if "fixture" in file or "node_modules" in file or not (repo / file).is_file():
            continue
        source = (repo / file).read_bytes()
        tree = Parser(_language(file)).parse(source)
        if not tree.root_node.has_error:
            _walk(tree.root_node, file, (), out)
    return out


def removes_js(removed: str, test: str) -> bool:
    """Whether a removed JavaScript test (`file::title`) accounts for a test gone from head, whichever way the
    runner's report spells it: titles joined by " > " (jest, vitest, node) or spaces (mocha), a file or none;
    a node subtest of the removed test included."""
    file, title = removed.split("::", 1)
    test_file, _, path = test.partition("::")
    # A node:test test that held subtests (`t.test(…)`) takes them along: `title > sub` is gone with it.
    held = path.startswith(title + " > ") or f" > {title} > " in path
    return test_file in (file, "") and (path == title or held or path.endswith((" > " + title, " " + title)))
