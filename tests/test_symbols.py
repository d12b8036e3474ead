"""Tests for showcause.symbols: extraction in four languages, lookups, imports and incremental refresh."""

from __future__ import annotations

import builtins
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import showcause.symbols.cache as cache_module
from showcause.symbols import SymbolHit, SymbolIndex, language_for, parse_symbols
from showcause.symbols.index import clear_caches

CORE_PY = '''\
"""Core module; ghost_name appears only in this docstring, a comment and a string."""
import os
import collections.abc as cabc
from .util import helper, other as alias
from . import sibling

MAX_SIZE = 10
counter = 0


class Widget(Base):
    size: int = 3

    def __init__(self, name: str) -> None:
        self.name = name  # ghost_name in a comment

    @property
    def label(self):
        return helper(self.name, f"{counter}")


def build(count, *args, flag=False, **kwargs):
    text = "ghost_name in a string"
    widget = Widget(text)
    return widget.label, os.path.join(alias, cabc, sibling, MAX_SIZE, count)
'''

UTIL_PY = """\
def helper(*parts):
    return parts


def other():
    return helper()
"""

APP_JS = """\
import React, { useState as useLocalState } from "react";
import * as path from "node:path";
const { join } = require("./util.js");

// ghost_name in a comment
export function render(props, { title = "x" }) {
  const [count, setCount] = useLocalState(0);
  const message = `Hello ${props.user} ghost_name`;
  return join(title, message, count, path.sep);
}

export default class App extends React.Component {
  state = { open: false };
  toggle() {
    this.setState({ open: !this.state.open });
  }
}
"""

TYPES_TS = """\
import type { Widget } from "./widget";
export interface Shape {
  area(): number;
  name: string;
}
export type Id = string | number;
enum Color { Red, Green }
export const DEFAULT_ID: Id = 1;
function measure(shape: Shape, scale = 2): number {
  return shape.area() * scale; /* ghost_name */
}
"""

VIEW_TSX = """\
import { render } from "./app.js";
export const View = ({ title }: { title: string }) => <div className="v">{render(title)}</div>;
"""

Row = tuple[str, int, str, str]


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def rows(hits: list[SymbolHit]) -> list[Row]:
    return [(h.file, h.line, h.kind, h.detail) for h in hits]


def defs(index: SymbolIndex, file: str) -> list[tuple[int, str, str]]:
    return [(h.line, h.detail, h.name) for h in index.definitions(file)]


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    clear_caches()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    write(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/core.py": CORE_PY,
            "pkg/util.py": UTIL_PY,
            "web/app.js": APP_JS,
            "web/types.ts": TYPES_TS,
            "web/view.tsx": VIEW_TSX,
            "README.md": "helper render ghost_name",
        },
    )
    return root


@pytest.fixture
def index(tree: Path) -> SymbolIndex:
    return SymbolIndex.for_tree(tree)


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


def test_refresh_is_incremental(index: SymbolIndex, tree: Path) -> None:
    assert index.refresh() == 0
    (tree / "pkg/util.py").write_text(UTIL_PY + "\n\ndef extra():\n    pass\n", encoding="utf-8")
    assert index.refresh() == 1
    assert rows(index.lookup("extra")) == [("pkg/util.py", 9, "definition", "function")]
    assert index.refresh() == 0
    os.utime(tree / "web/app.js")  # touched, same content: re-hashed, not re-parsed
    assert index.refresh() == 0
    (tree / "pkg/util.py").unlink()
    assert index.refresh() == 0
    assert "pkg/util.py" not in index.files
    assert rows(index.lookup("other")) == [("pkg/core.py", 4, "reference", "import")]
    write(tree, {"pkg/new.py": "def brand_new():\n    pass\n"})
    assert index.refresh() == 1
    assert rows(index.lookup("brand_new")) == [("pkg/new.py", 1, "definition", "function")]


def test_same_size_rewrite_with_same_mtime_is_detected(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "alpha = 1\n"})
    index = SymbolIndex(tmp_path)
    stat = (tmp_path / "a.py").stat()
    (tmp_path / "a.py").write_text("gamma = 1\n", encoding="utf-8")
    os.utime(tmp_path / "a.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert index.refresh() == 1
    assert rows(index.lookup("gamma")) == [("a.py", 1, "definition", "variable")]
    assert index.lookup("alpha") == []


def test_for_tree_shares_and_refreshes(tree: Path) -> None:
    first = SymbolIndex.for_tree(tree)
    write(tree, {"later.py": "LATE = 1\n"})
    second = SymbolIndex.for_tree(tree / "pkg" / "..")
    assert second is first
    assert rows(second.lookup("LATE")) == [("later.py", 1, "definition", "constant")]


def test_content_cache_is_shared_across_trees(
    tree: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[str] = []
    real = cache_module.parse_definitions

    def counting(source: bytes, language: str, file: str = "", seconds: float | None = None) -> Any:
        parsed.append(file)
        return real(source, language, file, seconds)

    monkeypatch.setattr(cache_module, "parse_definitions", counting)
    base = SymbolIndex.for_tree(tree)
    assert len(parsed) == 6
    head = tmp_path / "head"
    shutil.copytree(tree, head)
    (head / "pkg/util.py").write_text(UTIL_PY.replace("other", "renamed"), encoding="utf-8")
    parsed.clear()
    head_index = SymbolIndex.for_tree(head)
    assert parsed == ["pkg/util.py"]
    assert rows(head_index.lookup("renamed")) == [("pkg/util.py", 5, "definition", "function")]
    assert rows(base.lookup("renamed")) == []


def test_walk_skips_symlinks_and_ignored_files(
    tree: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outside = tmp_path / "outside"
    write(outside, {"secret.py": "outside_only = 1\n", "lib/more.py": "outside_only = 2\n"})
    (tree / "linked.py").symlink_to(outside / "secret.py")
    (tree / "linked_dir").symlink_to(outside / "lib", target_is_directory=True)
    write(
        tree,
        {
            "node_modules/dep/index.js": "const skipped_name = 1;",
            ".git/hooks/x.py": "skipped_name = 1",
            "__pycache__/x.py": "skipped_name = 1",
            ".venv/lib/x.py": "skipped_name = 1",
            "big.py": "skipped_name = 1\n" + "#" * (1 << 20),
            "binary.py": b"skipped_name = 1\n\x00\x01",
            "locked.py": "skipped_name = 1\n",
        },
    )
    real_open = builtins.open

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file).endswith("locked.py"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    index = SymbolIndex(tree)
    assert index.files == [
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/util.py",
        "web/app.js",
        "web/types.ts",
        "web/view.tsx",
    ]
    assert index.lookup("outside_only") == []
    assert index.lookup("skipped_name") == []


def test_non_utf8_file(tmp_path: Path) -> None:
    latin1 = b'# -*- coding: latin-1 -*-\nGREETING = "d\xe9j\xe0 vu"\ndef greet():\n    return GREETING\n'
    write(tmp_path, {"latin.py": latin1})
    index = SymbolIndex(tmp_path)
    assert defs(index, "latin.py") == [(2, "constant", "GREETING"), (3, "function", "greet")]
    hits = index.lookup("GREETING")
    assert rows(hits) == [
        ("latin.py", 2, "definition", "constant"),
        ("latin.py", 4, "reference", "reference"),
    ]
    assert hits[0].text == 'GREETING = "d\ufffdj\ufffd vu"'


def test_file_with_syntax_errors_yields_what_it_can(tmp_path: Path) -> None:
    source = "def ok(a):\n    return a\n\ndef broken(:\n    pass\n\nclass Fine:\n    value = ok(1)\n"
    write(
        tmp_path,
        {
            "bad.py": source,
            "bad.ts": "function good(x: number) { return x }\nconst = ;\nlet after = good(2);\n",
        },
    )
    assert parse_symbols(source.encode(), "python", "bad.py").has_errors
    index = SymbolIndex(tmp_path)
    py_defs = defs(index, "bad.py")
    assert py_defs == [
        (1, "function", "ok"),
        (1, "parameter", "a"),
        (4, "function", "broken"),  # recovered from the ERROR node
        (7, "class", "Fine"),
        (8, "variable", "value"),
    ]
    assert rows(index.lookup("ok", "reference")) == [("bad.py", 8, "reference", "call")]
    assert parse_symbols(b"const = ;", "typescript", "bad.ts").has_errors
    assert defs(index, "bad.ts") == [(1, "function", "good"), (1, "parameter", "x"), (3, "variable", "after")]
    assert rows(index.lookup("good", "reference")) == [("bad.ts", 3, "reference", "call")]


def test_hit_text_is_stripped_and_truncated(tmp_path: Path) -> None:
    write(tmp_path, {"long.py": "def g():\n    long_name = [" + "1, " * 150 + "]\n"})
    (hit,) = SymbolIndex(tmp_path).lookup("long_name")
    assert hit.text.startswith("long_name = [1, ") and len(hit.text) == 200
    assert (hit.line, hit.kind, hit.detail) == (2, "reference", "reference")  # function local
