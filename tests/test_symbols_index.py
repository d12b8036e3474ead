"""Tests for showcause.symbols' index: incremental refresh, shared caches, the walk, odd files."""

# ruff: noqa: F811  (the fixtures imported from symbol_samples are parameters of the tests below)
from __future__ import annotations

import builtins
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import showcause.symbols.cache as cache_module
from showcause.symbols import SymbolIndex, parse_symbols
from symbol_samples import UTIL_PY, defs, fresh_caches, index, rows, tree, write  # noqa: F401  (fixtures)


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
