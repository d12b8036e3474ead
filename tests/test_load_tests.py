"""unittest's `load_tests` under the review's pytest: the tests it adds (doctests, most often) are run, and a
change that breaks one of them blocks, citing it (more-itertools adds its doctests this way)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

MODULE = 'def double(x):\n    """Twice x.\n\n    >>> double(2)\n    4\n    """\n    return x * 2\n'
TESTS = ("import doctest\nfrom unittest import TestCase\n\nimport pkg.calc\n\n\n"
         "def load_tests(loader, tests, ignore):\n    tests.addTests(doctest.DocTestSuite(pkg.calc))\n"
         "    return tests\n\n\n"
         "class TestCalc(TestCase):\n    def test_zero(self):\n        self.assertEqual(pkg.calc.double(0), 0)\n")
BASE = {"pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n', "src/pkg/__init__.py": "",
        "src/pkg/calc.py": MODULE, "tests/test_calc.py": TESTS}


def _review(tmp_path: Path, head: dict[str, str | bytes | None]):
    case = make_case(tmp_path / "case", BASE, head, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        return run_review(tool_context(snap), "mechanical")


def test_a_change_that_breaks_a_doctest_added_by_load_tests_blocks_citing_it(tmp_path: Path) -> None:
    result = _review(tmp_path, {"src/pkg/calc.py": MODULE.replace("return x * 2", "return x * 2 + (x == 2)")})
    assert result.verdict == "MODIFY"
    assert [(a.subject, a.detail.split(" — ", 1)[1]) for c in result.claims for a in c.artifacts] == [
        ("tests/test_calc.py::load_tests::pkg.calc.double", "double(2): expected 4, got 5")]


def test_a_change_the_doctests_still_hold_for_is_kept(tmp_path: Path) -> None:
    result = _review(tmp_path, {"src/pkg/calc.py": MODULE.replace("return x * 2", "return x + x")})
    assert (result.verdict, result.claims) == ("KEEP", [])
