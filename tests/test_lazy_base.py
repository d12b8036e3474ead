"""Base runs only when head's outcomes need it (`differential.base_needed`), on real trees with real pytest in
the sandbox: not at all when every test passed and each test its file defines gave a result; exactly what head
ran when a test did not pass, when a file defines a test head gave no result for, or when a file's source
cannot list its tests. The speculative path (base beside head, `eager_base`) runs it every time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import make_case
from showcause.core.host import spare_cores
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context
from showcause.tools.testpresence import file_tests, python_tests

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

CALC = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": '"""Arithmetic."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n',
    "tests/test_calc.py": "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_more.py": "from pkg.calc import add\n\n\nclass TestMore:\n    def test_zero(self):\n"
                          "        assert add(0, 0) == 0\n\n    def test_one(self):\n        assert add(1, 0) == 1\n",
}
DOCSTRING = {"src/pkg/calc.py": '"""Arithmetic on integers."""\n\n\ndef add(a: int, b: int) -> int:\n'
                                '    return a + b\n'}
# Tests made at run time: the source cannot list them, so only base's run can say what head lost.
MADE = ("from pkg.calc import add\n\n\nclass TestMade:\n    pass\n\n\n"
        "setattr(TestMade, 'test_one', lambda self: None)\n")


def _call(tmp_path: Path, base: dict[str, str], head: dict[str, str | None], *, eager: bool) -> str:
    case = make_case(tmp_path / "c", base, head, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        ctx = tool_context(snap)
        ctx.eager_base = eager
        call = Ledger(ctx).call("run_test", {"test": ["tests/test_calc.py", "tests/test_more.py"]})
    return call.output.splitlines()[0]


def test_base_is_not_run_when_every_test_passed_on_head(tmp_path: Path):
    line = _call(tmp_path, CALC, DOCSTRING, eager=False)
    assert ("base not run: every test passed on head and every test its file defines gave a result" in line)
    assert "3 passed on head" in line


def test_speculative_base_runs_every_target(tmp_path: Path):
    assert "base ran the same 2 target(s)" in _call(tmp_path, CALC, DOCSTRING, eager=True)


def test_base_runs_what_head_ran_when_a_test_failed(tmp_path: Path):
    broken = {"src/pkg/calc.py": '"""Arithmetic."""\n\n\ndef add(a: int, b: int) -> int:\n    return a - b\n'}
    line = _call(tmp_path, CALC, broken, eager=False)
    # test_add fails (2 - 3): base runs both files, in head's order (an order-dependent failure shows on both).
    assert "1 failed, 2 passed on head" in line and "base ran the same 2 target(s)" in line


def test_base_runs_a_file_whose_tests_its_source_cannot_list(tmp_path: Path):
    line = _call(tmp_path, {**CALC, "tests/test_more.py": MADE}, DOCSTRING, eager=False)
    assert "2 passed on head" in line and "base ran the same 2 target(s)" in line


def test_base_runs_a_file_with_a_test_head_gave_no_result_for(tmp_path: Path):
    deselect = ("def pytest_collection_modifyitems(items):\n"
                "    items[:] = [i for i in items if i.name != 'test_zero']\n")
    case = make_case(tmp_path / "c", CALC, {**DOCSTRING, "tests/conftest.py": deselect},
                     checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        ctx = tool_context(snap)
        ctx.eager_base = False
        call = Ledger(ctx).call("run_test", {"test": ["tests/test_calc.py", "tests/test_more.py"]})
    assert "base ran the same 2 target(s)" in call.output.splitlines()[0]
    assert [(r["test"], r["head"], r["base"]) for r in call.results if r["head"] != "passed"] == [
        ("tests/test_more.py::TestMore::test_zero", "error", "passed")]
    assert [a.subject for a in call.artifacts] == ["tests/test_more.py::TestMore::test_zero"]


def test_python_tests_lists_what_pytest_collects_by_default():
    source = b"""
import unittest
from unittest import TestCase


def test_top():
    pass


def helper_test():
    pass


class Helper:
    def test_not_collected(self):
        pass


class TestThing(Helper):
    def test_own(self):
        pass


class Cases(TestCase):
    def test_case(self):
        pass


class MoreCases(Cases):
    def test_more(self):
        pass
"""
    assert python_tests(source) == {"test_top", "TestThing::test_own", "TestThing::test_not_collected",
                                    "Cases::test_case", "MoreCases::test_case", "MoreCases::test_more"}


@pytest.mark.parametrize("source", [
    b"from base import Suite\n\n\nclass TestX(Suite):\n    def test_a(self):\n        pass\n",   # a base from elsewhere
    b"from base import Suite\n\n\nclass Checks(Suite):\n    pass\n",                            # maybe a test case
    b"import pytest\n\n\n@pytest.mark.x\nclass TestX:\n    def test_a(self):\n        pass\n",  # a decorator
    b"class TestX:\n    class TestInner:\n        def test_a(self):\n            pass\n",          # a nested class
    b"def test_a():\n    pass\n\n\nglobals()['test_b'] = test_a\n",                               # made at run time
    b"def test_a(:\n",                                                                            # does not parse
])
def test_python_tests_says_none_when_the_source_cannot_say(source: bytes):
    assert python_tests(source) is None


def test_file_tests_reads_javascript_title_paths(tmp_path: Path):
    (tmp_path / "a.test.js").write_text("describe('math', () => {\n  it('adds', () => {});\n});\n"
                                        "test('top', () => {});\n")
    (tmp_path / "b.test.js").write_text("test.each([1, 2])('n %i', () => {});\n")
    assert file_tests(tmp_path, "a.test.js") == {"a.test.js::math > adds", "a.test.js::top"}
    assert file_tests(tmp_path, "b.test.js") is None
    assert file_tests(tmp_path, "missing.test.js") is None


def test_speculation_needs_cores_to_spare():
    # One usable core: base beside head would only share it.
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from showcause.core.host import spare_cores; print(spare_cores())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.strip() == "False"
    assert spare_cores() is (len(os.sched_getaffinity(0)) >= 4)
