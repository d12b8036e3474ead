"""Which allowlisted tests a change can affect, through the tree-sitter import graph."""

from __future__ import annotations

import posixpath

from showcause.evidence.codetext import file_class
from showcause.symbols import SymbolIndex
from showcause.tools.base import ToolContext
from showcause.tools.run_test import allowlist

__all__ = ["SMALL_PROJECT", "affected_tests"]

SMALL_PROJECT = 8   # at or below this many test files every test runs: cheaper than being wrong


def _module_files(index: SymbolIndex) -> dict[str, str]:
    """Dotted Python module name -> file, for every suffix of the path (src layouts, flat layouts)."""
    out: dict[str, str] = {}
    for rel in index.files:
        if not rel.endswith((".py", ".pyi")):
            continue
        parts = rel.rsplit(".", 1)[0].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for i in range(len(parts)):
            out.setdefault(".".join(parts[i:]), rel)
    return out


def _resolve(spec: str, importer: str, modules: dict[str, str], files: set[str]) -> list[str]:
    if spec.startswith("."):                       # JS/TS relative specifier
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        options = [base, *(base + ext for ext in (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")),
                   *(f"{base}/index{ext}" for ext in (".js", ".ts"))]
        return [o for o in options if o in files]
    found = []
    parts = spec.split(".")
    for i in range(len(parts), 0, -1):             # `pkg.mod.attr` -> pkg.mod, then pkg
        hit = modules.get(".".join(parts[:i]))
        if hit:
            found.append(hit)
            break
    return found


def _specs(index: SymbolIndex, file: str) -> set[str]:
    """Import specifiers of a file; for Python also `pkg.name` for every imported name, since
    `from pkg import mod` may import a submodule (pairing every package with every name over-approximates,
    which only ever selects more tests)."""
    specs = set(index.imports(file))
    if file.endswith((".py", ".pyi")):
        names = {h.name for h in index.definitions(file) if h.detail == "import"}
        specs |= {f"{spec}.{name}" for spec in list(specs) if not spec.startswith(".") for name in names}
    return specs


def affected_tests(ctx: ToolContext) -> tuple[list[str], str]:
    """(test files to run, why). All of them when the project is small or the graph cannot tell."""
    tests = allowlist(ctx)
    if len(tests) <= SMALL_PROJECT:
        return tests, f"{len(tests)} test files: all run"
    changed = set(ctx.snapshot.diff.files)
    index = SymbolIndex.for_tree(ctx.snapshot.head)
    files = set(index.files)
    code_changes = {c for c in changed if c in files}
    if code_changes != {c for c in changed if file_class(c) != "prose"}:
        return tests, "the change touches files outside the import graph: all tests run"
    modules = _module_files(index)
    graph = {f: {t for spec in _specs(index, f) for t in _resolve(spec, f, modules, files)} for f in files}
    picked = []
    for test in tests:
        seen, stack = {test}, [test]
        while stack:
            for dep in graph.get(stack.pop(), ()):
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        if seen & changed:
            picked.append(test)
    if not picked:
        return tests, "no test imports the changed files: all tests run"
    return picked, f"{len(picked)} of {len(tests)} test files import the changed code"
