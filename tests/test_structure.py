"""The size rules of the code base: files of at most 400 lines, functions of at most 60 unless the reason is
written beside them (a `# long:` comment on the line of the `def` or just above it)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREES = ("src", "tests", "benchmarks", "examples")
MAX_FILE, MAX_FUNCTION = 400, 60


def _python_files() -> list[Path]:
    return sorted(p for tree in TREES for p in (ROOT / tree).rglob("*.py") if "node_modules" not in p.parts)


def _long_files(paths: list[Path]) -> list[str]:
    return [f"{p.relative_to(ROOT)}: {n} lines" for p in paths
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE]


def _long_functions(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        beside = " ".join(lines[max(0, first - 2):node.lineno])
        if length > MAX_FUNCTION and "# long:" not in beside:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length} lines")
    return found


def test_no_file_is_longer_than_400_lines():
    assert _long_files(_python_files()) == []


def test_no_function_is_longer_than_60_lines_without_a_reason():
    assert [f for p in _python_files() if p.is_relative_to(ROOT / "src") for f in _long_functions(p)] == []


def test_the_rules_see_a_long_file_and_a_long_function(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    (tmp_path / "a.py").write_text(f"def short():\n    pass\n\n\ndef long():\n{body}\n\n# long: a table\n"
                                   f"def excused():\n{body}" + "\n" * 300)
    assert _long_functions(tmp_path / "a.py") == ["a.py:5 long: 61 lines"]
    assert _long_files([tmp_path / "a.py"]) == ["a.py: 429 lines"]
