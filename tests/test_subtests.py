"""A test whose subtest fails (`self.subTest`, pytest's own subtests) failed, though its own call then passes:
a change that breaks one subtest blocks, citing the test (more-itertools' `sliding_window` tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

MODULE = "def window(n):\n    return list(range(n))\n"
TESTS = ("from unittest import TestCase\n\nfrom pkg.calc import window\n\n\n"
         "class TestWindow(TestCase):\n    def test_sizes(self):\n        for n in (0, 1, 2, 3):\n"
         "            with self.subTest(n=n):\n                self.assertEqual(len(window(n)), n)\n")
BASE = {"pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n', "src/pkg/__init__.py": "",
        "src/pkg/calc.py": MODULE, "tests/test_calc.py": TESTS}


def test_a_change_that_breaks_one_subtest_blocks_citing_its_test(tmp_path: Path) -> None:
    head = {"src/pkg/calc.py": MODULE.replace("range(n)", "range(n if n != 2 else 3)")}
    case = make_case(tmp_path / "case", BASE, head, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    assert [a.subject for c in result.claims for a in c.artifacts] == ["tests/test_calc.py::TestWindow::test_sizes"]
