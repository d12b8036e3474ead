"""JSON that sandboxed tools print or write, and a repository's settings, are bounded: too deep is no result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import write_tree
from deep import DEEP, LISTS
from showcause.tools.diagnostics import parse_pyright
from showcause.tools.pyright_config import configured_files
from showcause.tools.runners.node_test import read_junit as _read_junit
from showcause.tools.runners.pytest_runner import read_pytest_report as _read_pytest

# ---- JSON that sandboxed tools print or write ------------------------------------------------------------

def test_deep_or_odd_pyright_output_is_a_failed_run():
    assert parse_pyright('{"generalDiagnostics": ' + LISTS + "}", "/w") is None
    assert parse_pyright("[]", "/w") is None
    assert parse_pyright('{"generalDiagnostics": {"x": 1}}', "/w") is None
    ok = {"generalDiagnostics": [5, {"severity": "error", "file": "/w/a.py", "message": "m", "rule": "r",
                                     "range": {"start": {"line": 1, "character": 2}}}]}
    [diag] = parse_pyright(json.dumps(ok), "/w") or []
    assert (diag.file, diag.line, diag.col) == ("a.py", 2, 3)


def test_test_report_rows_written_by_the_code_under_test_are_bounded(tmp_path: Path):
    row = {"id": "tests/test_a.py::test_ok", "outcome": "passed", "message": ""}
    (tmp_path / "report.jsonl").write_text("\n".join([LISTS, "[1]", '"text"', "7", json.dumps(row), "{cut"]))
    assert [(o.test, o.outcome) for o in _read_pytest(tmp_path)] == [("tests/test_a.py::test_ok", "passed")]


@pytest.mark.parametrize("name,text", [("pyrightconfig.json", '{"include": ' + LISTS + "}"),
                                       ("pyproject.toml", "[tool.pyright]\ninclude = " + LISTS + "\n")])
def test_a_repository_s_deep_pyright_settings_are_ignored(tmp_path: Path, name: str, text: str):
    write_tree(tmp_path, {name: text})
    assert configured_files(tmp_path) is None


def test_junit_suites_nested_too_deep_give_no_outcomes(tmp_path: Path):
    case = '<testcase name="t"><failure message="boom" type="testCodeFailure"/></testcase>'
    (tmp_path / "junit.xml").write_text(f'<testsuites><testsuite name="a"><testsuite name="b">{case}'
                                        '</testsuite></testsuite><testcase name="top"/></testsuites>')
    assert [(o.test, o.outcome) for o in _read_junit(tmp_path, "t.test.js")] == [
        ("t.test.js::a > b > t", "failed"), ("t.test.js::top", "passed")]
    (tmp_path / "junit.xml").write_text("<testsuites>" + '<testsuite name="s">' * DEEP + case
                                        + "</testsuite>" * DEEP + "</testsuites>")
    assert _read_junit(tmp_path, "t.test.js") == []
