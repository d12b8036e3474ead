"""Tests for showcause.symbols beyond extraction: lazy references against eager extraction on real trees,
worker processes, refresh of given paths, and indexes derived from a sibling tree."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import showcause.symbols.cache as cache_module
import showcause.symbols.pool as workers_module
from builders import write_tree as write
from showcause.core.errors import InputError
from showcause.policy import Policy, load_policy, tighter_only
from showcause.snapshot import from_case
from showcause.symbols import FileSymbols, SymbolIndex, language_for, parse_symbols
from showcause.symbols.cache import digest_of
from showcause.symbols.extract_worker import extract_jobs, read_frame, write_frame
from showcause.symbols.index import clear_caches
from showcause.symbols.languages import resolve_python_import
from showcause.symbols.pool import PARALLEL_MIN_FILES

REPO_CASES = Path(__file__).resolve().parent.parent / "repo_cases"
STDLIB_EMAIL = Path(json.__file__).resolve().parent.parent / "email"

Row = tuple[str, int, str, str]
State = tuple[list[str], dict[str, list[tuple[int, str, str]]], dict[str, list[str]]]


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    clear_caches()




def state(index: SymbolIndex) -> State:
    files = index.files
    defs = {f: [(h.line, h.detail, h.name) for h in index.definitions(f)] for f in files}
    return files, defs, {f: index.imports(f) for f in files}


def rows(index: SymbolIndex, name: str, kind: str = "any") -> list[Row]:
    return [(h.file, h.line, h.kind, h.detail) for h in index.lookup(name, kind)]


def eager_rows(everything: dict[str, FileSymbols], name: str, kind: str) -> list[Row]:
    """What a lookup returned when every file's references were extracted while indexing."""
    return [
        (rel, line, hit_kind, detail)
        for rel, symbols in everything.items()
        for line, hit_kind, detail in symbols.hits(name, kind)
    ]


def sample_names(index: SymbolIndex, count: int) -> list[str]:
    defined = sorted({h.name for f in index.files for h in index.definitions(f)})
    # Names only ever referenced, non-ASCII names, an empty and an unknown name.
    extra = ["print", "len", "self", "require", "console", "café", "naïve", "caf", "", "no_such_name_anywhere"]
    return defined[:: max(1, len(defined) // count)] + extra


@pytest.mark.parametrize("tree", [REPO_CASES, STDLIB_EMAIL], ids=["repo_cases", "stdlib-email"])
def test_lazy_references_match_eager_extraction(tree: Path, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(tree, root, ignore=shutil.ignore_patterns("__pycache__"))
    # Non-ASCII names, and bytes that are not UTF-8 (tree-sitter ends the identifier before them).
    write(root, {
        "intl/names.py": "café = 1\nprint(café)  # café in a comment\nnaïve = café\n",
        "intl/legacy.py": b"caf\xe9 = 1\nprint(caf\xe9)\n# caf\xe9 in a comment\n",
    })  # fmt: skip
    index = SymbolIndex(root, workers=1)
    everything: dict[str, FileSymbols] = {}
    for rel in index.files:
        language = language_for(rel)
        assert language is not None
        everything[rel] = symbols = parse_symbols((root / rel).read_bytes(), language, rel)
        assert [(h.line, h.detail, h.name) for h in index.definitions(rel)] == symbols.definition_list()
        specs = [resolve_python_import(spec, rel) if language == "python" else spec for spec in symbols.imports]
        assert index.imports(rel) == list(dict.fromkeys(specs))
    assert len(everything) > 25 and "intl/legacy.py" in everything
    names = sample_names(index, 80)
    assert rows(index, "café") == [("intl/names.py", 1, "definition", "variable"),
                                   ("intl/names.py", 2, "reference", "reference"),
                                   ("intl/names.py", 3, "reference", "reference")]  # fmt: skip
    for name in names:
        for kind in ("definition", "reference", "any"):
            assert rows(index, name, kind) == eager_rows(everything, name, kind), (name, kind)


def test_reference_lookup_without_ripgrep_gives_the_same_hits(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "tree"
    shutil.copytree(STDLIB_EMAIL, root, ignore=shutil.ignore_patterns("__pycache__"))
    names = ["Message", "get_payload", "self", "_structure"]
    with_rg = {name: rows(SymbolIndex(root), name) for name in names}
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setattr(sys, "executable", str(empty / "python"))  # no rg beside the interpreter
    monkeypatch.setenv("PATH", str(empty))  # nor on PATH
    clear_caches()
    index = SymbolIndex(root, workers=1)
    assert {name: rows(index, name) for name in names} == with_rg
    assert all(with_rg[name] for name in names)


def test_worker_processes_build_the_same_index(caplog: pytest.LogCaptureFixture) -> None:
    single = state(SymbolIndex(REPO_CASES, workers=1))
    clear_caches()  # otherwise every file is a cache hit and no worker has anything to do
    with caplog.at_level(logging.WARNING, logger="showcause.symbols"):
        parallel = state(SymbolIndex(REPO_CASES, workers=2))
    assert parallel == single
    assert caplog.records == []


def test_workers_that_cannot_start_leave_the_work_in_process(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    single = state(SymbolIndex(REPO_CASES, workers=1))
    clear_caches()
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    with caplog.at_level(logging.WARNING, logger="showcause.symbols"):
        parallel = state(SymbolIndex(REPO_CASES, workers=2))
    assert parallel == single
    assert [r.getMessage() for r in caplog.records] == ["symbol extraction worker failed; extracting in-process"]


def test_worker_min_files_zero_starts_a_worker_for_any_load_on_any_host(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The policy's symbol_worker_min_files = 0: a worker runs even for two files on a busy one-core host."""
    write(tmp_path, {"a.py": "def one():\n    return 1\n", "b.py": "from a import one\nTWO = one() + 1\n"})
    single = state(SymbolIndex(tmp_path, workers=1))
    clear_caches()
    started: list[workers_module._Worker] = []
    real = workers_module._Worker

    def counting() -> workers_module._Worker:
        started.append(real())
        return started[-1]

    monkeypatch.setattr(workers_module, "_Worker", counting)
    monkeypatch.setattr(workers_module, "auto_workers", lambda: 1)  # one usable core
    monkeypatch.setattr(workers_module, "_idle_cores", lambda since: 0.0)  # and it is busy
    assert state(SymbolIndex(tmp_path)) == single  # automatic, default threshold: nothing starts
    assert started == []
    clear_caches()
    assert state(SymbolIndex(tmp_path, worker_min_files=0)) == single
    assert len(started) == 1


def test_worker_min_files_is_a_policy_key_a_repository_may_only_raise() -> None:
    loaded = load_policy().symbols.symbol_worker_min_files
    assert Policy().symbols.symbol_worker_min_files == PARALLEL_MIN_FILES == loaded
    assert load_policy({"symbols": {"symbol_worker_min_files": 0}}).symbols.symbol_worker_min_files == 0
    with pytest.raises(InputError, match="symbol_worker_min_files must be 0 or more"):
        load_policy({"symbols": {"symbol_worker_min_files": -1}})
    default = load_policy()
    tighter_only(default, load_policy({"symbols": {"symbol_worker_min_files": 5000}}), "repo")  # fewer host processes
    with pytest.raises(InputError, match="symbol_worker_min_files may only be tightened"):
        tighter_only(default, load_policy({"symbols": {"symbol_worker_min_files": 0}}), "repo")


def test_worker_extracts_only_unchanged_content(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"def f(x):\n    return x\n")
    digest = digest_of(path.read_bytes())
    good, changed, refused = extract_jobs(
        [(str(path), "python", digest), (str(path), "python", digest_of(b"older")), (str(path), "cobol", digest)]
    )
    assert isinstance(good, tuple) and good[1:] == ((), False)
    assert sorted(good[0]) == ["f", "x"]
    assert changed is None
    assert refused == "ValueError: unsupported language 'cobol' for " + str(path)
    stream = io.BytesIO()
    write_frame(stream, [good])
    data = stream.getvalue()
    assert read_frame(io.BytesIO(data)) == [good]
    assert read_frame(io.BytesIO(b"")) is None
    with pytest.raises(EOFError):
        read_frame(io.BytesIO(data[:-1]))


BASE = {
    "app/core.py": "from .util import helper\n\ndef run():\n    return helper()\n",
    "app/util.py": "def helper():\n    return 1\n",
    "app/gone.py": "def gone():\n    pass\n",
    "app/touched.py": "TOUCHED = 1\n",
    "app/legacy.py": "def legacy_file():\n    pass\n",
    "web/old.js": "export function moved() { return 1; }\n",
    "pkg/mod.py": "def in_pkg():\n    pass\n",
    "linked/lib.py": "def linked_lib():\n    pass\n",
    "node_modules/dep/index.js": "const dep = 1;\n",
}


def change_tree(root: Path, outside: Path) -> list[str]:
    """Apply every kind of change to a copy of BASE; return the changed paths, as a diff names them."""
    write(root, {
        "app/util.py": "def helper():\n    return 2\n\n\ndef added_helper():\n    return helper()\n",
        "app/new.py": "from .util import added_helper\nNEW = added_helper()\n",
        "web/moved.ts": "export function moved(): number { return 1; }\n",  # renamed, now TypeScript
        "node_modules/dep/extra.js": "const skipped = 1;\n",
    })  # fmt: skip
    (root / "app/gone.py").unlink()
    (root / "app/legacy.py").unlink()
    write(root, {"app/legacy.py/inner.py": "def inner():\n    pass\n"})  # a file replaced by a directory
    (root / "web/old.js").unlink()
    os.utime(root / "app/touched.py")  # touched, same content
    shutil.rmtree(root / "pkg")
    write(root, {"pkg": "not a directory any more\n"})  # a directory replaced by a file
    shutil.rmtree(root / "linked")
    write(outside, {"lib.py": "def outside_lib():\n    pass\n"})
    (root / "linked").symlink_to(outside, target_is_directory=True)  # a directory replaced by a symlink
    return [
        "app/util.py", "app/new.py", "app/gone.py", "app/touched.py", "app/legacy.py/inner.py", "app/legacy.py",
        "web/old.js", "web/moved.ts", "pkg",
        "pkg/mod.py", "linked", "linked/lib.py", "node_modules/dep/extra.js",
    ]  # fmt: skip


def test_refresh_with_changed_paths_matches_a_walk(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root, BASE)
    index = SymbolIndex(root)
    assert rows(index, "linked_lib") == [("linked/lib.py", 1, "definition", "function")]
    assert rows(index, "helper", "reference") == [("app/core.py", 4, "reference", "call")]
    changed = change_tree(root, tmp_path / "outside")
    assert index.refresh(changed) == 4  # util.py, new.py, moved.ts, legacy.py/inner.py
    assert state(index) == state(SymbolIndex(root, workers=1))
    assert "pkg/mod.py" not in index.files and "linked/lib.py" not in index.files
    assert rows(index, "inner") == [("app/legacy.py/inner.py", 1, "definition", "function")]
    assert rows(index, "moved") == [("web/moved.ts", 1, "definition", "export"),
                                    ("web/moved.ts", 1, "definition", "function")]  # fmt: skip
    assert rows(index, "helper", "reference") == [("app/core.py", 4, "reference", "call"),
                                                  ("app/util.py", 6, "reference", "call")]  # fmt: skip
    assert index.refresh() == 0  # the walk finds nothing left to do


def test_refresh_with_changed_paths_looks_at_nothing_else(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root, BASE)
    index = SymbolIndex(root)
    write(root, {"app/util.py": "def helper_two():\n    pass\n", "app/core.py": "def run_two():\n    pass\n"})
    assert index.refresh(["app/util.py"]) == 1
    assert rows(index, "helper_two", "definition") == [("app/util.py", 1, "definition", "function")]
    assert rows(index, "run_two", "definition") == []  # not named, not looked at
    assert index.refresh(["."]) == 1  # "." names the root: everything below it
    assert rows(index, "run_two", "definition") == [("app/core.py", 1, "definition", "function")]


@pytest.mark.parametrize("bad", ["/etc/passwd", "../x.py", "app/../../x.py", "app/caf\ufffd.py", ""])
def test_changed_paths_outside_the_tree_are_refused(tmp_path: Path, bad: str) -> None:
    write(tmp_path, BASE)
    index = SymbolIndex(tmp_path)
    with pytest.raises(ValueError):
        index.refresh(["app/util.py", bad])
    with pytest.raises(ValueError):
        SymbolIndex.derive(index, tmp_path, [bad])


def count_extractions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = cache_module.parse_definitions

    def counting(source: bytes, language: str, file: str = "", seconds: float | None = None) -> Any:
        parsed.append(file)
        return real(source, language, file, seconds)

    monkeypatch.setattr(cache_module, "parse_definitions", counting)
    return parsed


def test_derive_builds_the_other_tree_from_its_changed_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    write(base, BASE)
    base_index = SymbolIndex(base)
    before = state(base_index)
    shutil.copytree(base, head, symlinks=True)
    changed = change_tree(head, tmp_path / "outside")
    parsed = count_extractions(monkeypatch)
    head_index = SymbolIndex.derive(base_index, head, changed)
    assert sorted(parsed) == ["app/legacy.py/inner.py", "app/new.py", "app/util.py", "web/moved.ts"]
    assert head_index.root == head.resolve()
    assert state(head_index) == state(SymbolIndex(head, workers=1))
    assert state(base_index) == before
    assert rows(base_index, "added_helper") == []
    assert rows(head_index, "added_helper") == [("app/new.py", 1, "definition", "import"),
                                                ("app/new.py", 2, "reference", "call"),
                                                ("app/util.py", 5, "definition", "function")]  # fmt: skip


def test_for_tree_derives_from_a_cached_sibling_and_trusts_its_changed_paths(tmp_path: Path) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    write(base, BASE)
    shutil.copytree(base, head)
    write(head, {"app/util.py": "def helper():\n    return 3\n", "app/core.py": "def unlisted():\n    pass\n"})
    listed = ["app/util.py"]  # app/core.py also differs but is not listed: a derived index keeps base's
    derived = SymbolIndex.for_tree(head, sibling=base, changed=listed)  # base has no index yet: a walk
    assert rows(derived, "unlisted") == [("app/core.py", 1, "definition", "function")]
    clear_caches()
    SymbolIndex.for_tree(base)
    derived = SymbolIndex.for_tree(head, sibling=base, changed=listed)
    assert rows(derived, "unlisted", "definition") == []
    assert rows(derived, "run", "definition") == [("app/core.py", 3, "definition", "function")]
    assert SymbolIndex.for_tree(head) is derived
    clear_caches()
    SymbolIndex.for_tree(base)
    walked = SymbolIndex.for_tree(head, sibling=base, changed=["app/caf\ufffd.py"])  # untrusted: a walk
    assert rows(walked, "unlisted", "definition") == [("app/core.py", 1, "definition", "function")]


def test_for_tree_trusts_a_vouched_tree_until_its_directory_is_replaced(tmp_path: Path) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    write(base, BASE)
    shutil.copytree(base, head)
    write(head, {"app/util.py": "def helper():\n    return 3\n"})
    SymbolIndex.for_tree(base)
    first = SymbolIndex.for_tree(head, sibling=base, changed=["app/util.py"])
    write(head, {"app/late.py": "def late():\n    pass\n"})  # breaks the promise: no walk sees it
    again = SymbolIndex.for_tree(head, sibling=base, changed=["app/util.py"])
    assert again is first and rows(again, "late", "definition") == []
    shutil.rmtree(head)  # a new tree at the same path (as a later snapshot could be) is walked
    shutil.copytree(base, head)
    write(head, {"app/later.py": "def later():\n    pass\n"})
    fresh = SymbolIndex.for_tree(head, sibling=base, changed=["app/later.py"])
    assert rows(fresh, "later", "definition") == [("app/later.py", 1, "definition", "function")]
    assert rows(fresh, "late", "definition") == []
    assert SymbolIndex.for_tree(head) is fresh  # without the promise: a walk, which finds what changed
    write(head, {"app/last.py": "def last():\n    pass\n"})
    assert rows(SymbolIndex.for_tree(head), "last", "definition") == [("app/last.py", 1, "definition", "function")]


def test_reference_lookups_are_kept_until_the_index_changes(tmp_path: Path) -> None:
    write(tmp_path, BASE)
    index = SymbolIndex(tmp_path)
    first = rows(index, "helper")
    write(tmp_path, {"app/touched.py": "from .util import helper\nTOUCHED = helper()\n"})
    assert rows(index, "helper") == first  # as of the last refresh
    assert index.refresh() == 1
    assert rows(index, "helper") == sorted([*first, ("app/touched.py", 1, "definition", "import"),
                                            ("app/touched.py", 2, "reference", "call")])  # fmt: skip


def test_the_index_of_a_review_tree_derived_from_the_other_equals_a_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every repo case: the snapshot's diff names every path where the trees differ, so deriving either
    tree's index from the other's (as the review does) gives what a walk of the tree gives."""
    cases = sorted(p for p in REPO_CASES.iterdir() if (p / "base").is_dir())
    assert len(cases) >= 40
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(path: Any) -> Any:
        listed.append(str(path))
        return real_scandir(path)

    for case in cases:
        with from_case(case) as snap:
            assert snap.diff.files, case.name
            for first, second in ((snap.base, snap.head), (snap.head, snap.base)):
                clear_caches()
                SymbolIndex.for_tree(first)
                monkeypatch.setattr(os, "scandir", counting_scandir)
                derived = SymbolIndex.for_tree(second, sibling=first, changed=snap.diff.files)
                monkeypatch.setattr(os, "scandir", real_scandir)
                assert listed == [], case.name  # derived: no directory was listed
                assert state(derived) == state(SymbolIndex(second, workers=1)), case.name
