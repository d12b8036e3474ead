"""Tests for showcause.symbols extraction: definitions, references and imports in four languages, lookups."""

# ruff: noqa: F811  (the fixtures imported from symbol_samples are parameters of the tests below)
from __future__ import annotations

from pathlib import Path

import pytest

from showcause.symbols import DYNAMIC_IMPORT, SymbolHit, SymbolIndex, language_for, parse_symbols
from symbol_samples import defs, fresh_caches, index, rows, tree, write  # noqa: F401  (fixtures)


def test_language_for() -> None:
    expected = {
        "a.py": "python", "a.pyi": "python", "a.js": "javascript", "a.mjs": "javascript",
        "a.cjs": "javascript", "a.jsx": "javascript", "a.ts": "typescript", "a.mts": "typescript",
        "a.cts": "typescript", "d/a.tsx": "tsx", "a.md": None, "Makefile": None, "a.py/b": None,
    }  # fmt: skip
    assert {path: language_for(path) for path in expected} == expected


def test_files_are_sorted_posix_paths(index: SymbolIndex) -> None:
    assert index.files == [
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/util.py",
        "web/app.js",
        "web/types.ts",
        "web/view.tsx",
    ]


def test_python_definitions(index: SymbolIndex) -> None:
    assert defs(index, "pkg/core.py") == [
        (2, "import", "os"),
        (3, "import", "cabc"),
        (4, "import", "alias"),
        (4, "import", "helper"),
        (5, "import", "sibling"),
        (7, "constant", "MAX_SIZE"),
        (8, "variable", "counter"),
        (11, "class", "Widget"),
        (12, "variable", "size"),
        (14, "method", "__init__"),
        (14, "parameter", "name"),
        (14, "parameter", "self"),
        (15, "property", "name"),
        (18, "method", "label"),
        (18, "parameter", "self"),
        (22, "function", "build"),
        (22, "parameter", "args"),
        (22, "parameter", "count"),
        (22, "parameter", "flag"),
        (22, "parameter", "kwargs"),
    ]
    assert defs(index, "pkg/util.py") == [
        (1, "function", "helper"),
        (1, "parameter", "parts"),
        (5, "function", "other"),
    ]
    assert index.definitions("missing.py") == []


def test_python_references(index: SymbolIndex) -> None:
    core = "pkg/core.py"
    assert rows(index.lookup("helper")) == [
        (core, 4, "definition", "import"),
        (core, 19, "reference", "call"),
        ("pkg/util.py", 1, "definition", "function"),
        ("pkg/util.py", 6, "reference", "call"),
    ]
    assert rows(index.lookup("name")) == [
        (core, 14, "definition", "parameter"),
        (core, 15, "definition", "property"),
        (core, 15, "reference", "reference"),
        (core, 19, "reference", "reference"),
        ("web/types.ts", 4, "definition", "property"),
    ]
    assert rows(index.lookup("Widget", "reference")) == [(core, 24, "reference", "call")]
    assert rows(index.lookup("label")) == [
        (core, 18, "definition", "method"),
        (core, 25, "reference", "reference"),
    ]
    assert rows(index.lookup("counter")) == [
        (core, 8, "definition", "variable"),
        (core, 19, "reference", "reference"),
    ]
    assert rows(index.lookup("str")) == [(core, 14, "reference", "type")]
    assert rows(index.lookup("collections")) == [(core, 3, "reference", "import")]
    assert rows(index.lookup("other")) == [
        (core, 4, "reference", "import"),
        ("pkg/util.py", 5, "definition", "function"),
    ]
    assert rows(index.lookup("os")) == [
        (core, 2, "definition", "import"),
        (core, 25, "reference", "reference"),
    ]
    assert rows(index.lookup("text")) == [
        (core, 23, "reference", "reference"),
        (core, 24, "reference", "reference"),
    ]
    hit = index.lookup("MAX_SIZE", "definition")[0]
    assert hit == SymbolHit(core, 7, "definition", "constant", "MAX_SIZE", "MAX_SIZE = 10")


def test_comments_docstrings_and_strings_are_not_references(index: SymbolIndex) -> None:
    assert index.lookup("ghost_name") == []
    assert index.lookup("Hello") == []
    assert rows(index.lookup("user")) == [("web/app.js", 8, "reference", "reference")]  # ${} substitution


def test_javascript(index: SymbolIndex) -> None:
    app = "web/app.js"
    assert defs(index, app) == [
        (1, "import", "React"),
        (1, "import", "useLocalState"),
        (2, "import", "path"),
        (3, "variable", "join"),
        (6, "export", "render"),
        (6, "function", "render"),
        (6, "parameter", "props"),
        (6, "parameter", "title"),
        (7, "variable", "count"),
        (7, "variable", "setCount"),
        (8, "variable", "message"),
        (12, "class", "App"),
        (12, "export", "App"),
        (13, "property", "state"),
        (14, "method", "toggle"),
    ]
    assert rows(index.lookup("useState")) == [(app, 1, "reference", "import")]
    assert rows(index.lookup("useLocalState")) == [
        (app, 1, "definition", "import"),
        (app, 7, "reference", "call"),
    ]
    assert rows(index.lookup("setState")) == [(app, 15, "reference", "call")]
    assert rows(index.lookup("state")) == [
        (app, 13, "definition", "property"),
        (app, 15, "reference", "reference"),
    ]
    assert rows(index.lookup("title", "reference")) == [
        (app, 9, "reference", "reference"),
        ("web/view.tsx", 2, "reference", "reference"),
    ]
    assert rows(index.lookup("join")) == [
        ("pkg/core.py", 25, "reference", "call"),
        (app, 3, "definition", "variable"),
        (app, 9, "reference", "call"),
    ]
    assert rows(index.lookup("require")) == [(app, 3, "reference", "call")]


def test_typescript_and_tsx(index: SymbolIndex) -> None:
    assert defs(index, "web/types.ts") == [
        (1, "import", "Widget"),
        (2, "export", "Shape"),
        (2, "interface", "Shape"),
        (3, "method", "area"),
        (4, "property", "name"),
        (6, "export", "Id"),
        (6, "type", "Id"),
        (7, "property", "Green"),
        (7, "property", "Red"),
        (7, "type", "Color"),
        (8, "constant", "DEFAULT_ID"),
        (8, "export", "DEFAULT_ID"),
        (9, "function", "measure"),
        (9, "parameter", "scale"),
        (9, "parameter", "shape"),
    ]
    ts = "web/types.ts"
    assert rows(index.lookup("Shape")) == [
        (ts, 2, "definition", "export"),
        (ts, 2, "definition", "interface"),
        (ts, 9, "reference", "type"),
    ]
    assert rows(index.lookup("Id", "reference")) == [(ts, 8, "reference", "type")]
    assert rows(index.lookup("area")) == [(ts, 3, "definition", "method"), (ts, 10, "reference", "call")]
    assert defs(index, "web/view.tsx") == [
        (1, "import", "render"),
        (2, "export", "View"),
        (2, "function", "View"),
        (2, "parameter", "title"),
        (2, "property", "title"),
    ]
    assert rows(index.lookup("render")) == [
        ("web/app.js", 6, "definition", "export"),
        ("web/app.js", 6, "definition", "function"),
        ("web/view.tsx", 1, "definition", "import"),
        ("web/view.tsx", 2, "reference", "call"),
    ]
    assert rows(index.lookup("div")) == [("web/view.tsx", 2, "reference", "reference")]


def test_lookup_kind_filter(index: SymbolIndex) -> None:
    assert rows(index.lookup("helper", "definition")) == [
        ("pkg/core.py", 4, "definition", "import"),
        ("pkg/util.py", 1, "definition", "function"),
    ]
    assert rows(index.lookup("nothing_is_called_this")) == []
    with pytest.raises(ValueError):
        index.lookup("helper", "call")


def test_imports(index: SymbolIndex, tree: Path) -> None:
    assert index.imports("pkg/core.py") == ["os", "collections.abc", "pkg.util", "pkg"]
    assert index.imports("pkg/util.py") == []
    assert index.imports("web/app.js") == ["react", "node:path", "./util.js"]
    assert index.imports("web/types.ts") == ["./widget"]
    assert index.imports("web/view.tsx") == ["./app.js"]
    assert index.imports("missing.py") == []
    write(tree, {"src/lib/sub/mod.py": "from ..base import x\nfrom ...top import y\nfrom .... import z\n"})
    index.refresh()
    assert index.imports("src/lib/sub/mod.py") == ["lib.base", "top", "...."]


def test_run_time_imports_name_their_module_or_are_unknown() -> None:
    """A literal names its module; a computed name, or one relative to a package given apart, is unknown."""
    python = (b'import importlib\npytest_plugins = ["pkg.plugin", "other"]\n'
              b'a = importlib.import_module("pkg.mod")\nb = __import__("x.y")\n')
    assert parse_symbols(python, "python", "m.py").imports == ("importlib", "pkg.plugin", "other", "pkg.mod", "x.y")
    for computed in (b"importlib.import_module(name)\n", b'import_module(f"pkg.{x}")\n',
                     b'importlib.import_module(".rel", "pkg")\n', b'pytest_plugins = PLUGINS\n'):
        assert parse_symbols(computed, "python", "m.py").imports[-1] == DYNAMIC_IMPORT, computed
    js = b"const a = require('./a'); const b = require(p); const c = import(`./c`); const d = import(`./${x}`)\n"
    assert parse_symbols(js, "javascript", "m.js").imports == ("./a", DYNAMIC_IMPORT, "./c")


def test_module_level_conditional_definitions_but_not_locals() -> None:
    source = (
        b"import sys\n"
        b"if sys.platform == 'win32':\n    SEP = '\\\\'\nelse:\n    SEP = '/'\n"
        b"try:\n    import fast\nexcept ImportError:\n    fast = None\n"
        b"def f():\n    if True:\n        local = 1\n"
    )
    assert parse_symbols(source, "python", "m.py").definition_list() == [
        (1, "import", "sys"),
        (3, "constant", "SEP"),
        (5, "constant", "SEP"),
        (7, "import", "fast"),
        (9, "variable", "fast"),
        (10, "function", "f"),
    ]


def test_parse_symbols_is_pure() -> None:
    symbols = parse_symbols(b"def f(x):\n    return g(x)  # f\n", "python", "any/name.py")
    assert symbols.definition_list() == [(1, "function", "f"), (1, "parameter", "x")]
    assert symbols.hits("g") == [(2, "reference", "call")]
    assert symbols.hits("x") == [(1, "definition", "parameter"), (2, "reference", "reference")]
    assert symbols.hits("f", "reference") == []
    with pytest.raises(ValueError):
        parse_symbols(b"", "cobol", "x.cbl")
