"""A change that breaks more tests than one output shows is blocked citing every one of them (real pytest in the
sandbox, the mechanical judge, the gate): each broken test is an artifact of the block, and the text formats list
the first few and say how many more.

Found by the oracle: attrs' reverted release breaks 1,330 tests and the review cited 8 (the lines the output cap
kept), flat's mutant 26 of 45; the claims must cite exactly the tests the change broke."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.core.claims import LISTED_ARTIFACTS
from showcause.render.text import render_text
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

BASE = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": "def double(x: int) -> int:\n    return 2 * x\n",
    **{f"tests/test_part{n}.py": ("import pytest\n\nfrom pkg.calc import double\n\n\n"
                                  f"@pytest.mark.parametrize('x', range({size}))\n"
                                  f"def test_double_{n}(x):\n"
                                  "    assert double(x) == x + x, 'double of ' + str(x) + ' is not ' + 'x' * 150\n")
       for n, size in ((1, 30), (2, 25), (3, 5))},
}
HEAD = {"src/pkg/calc.py": "def double(x: int) -> int:\n    return 2 * x + 1\n"}


def test_every_broken_test_is_cited(tmp_path: Path):
    case = make_case(tmp_path / "c", BASE, HEAD, checks={"typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    broken = {f"tests/test_part{n}.py::test_double_{n}[{x}]" for n, size in ((1, 30), (2, 25), (3, 5))
              for x in range(size)}
    cited = {a.subject for c in result.claims if c.status == "validated" for a in c.artifacts}
    assert cited == broken
    call = next(t for t in result.tool_calls if t.tool == "run_test")
    assert "output cut" in call.output   # the cap did cut: the count line shows the rest
    assert "BROKEN 60 test(s) in 3 file(s)" in call.output.splitlines()[1]
    text = render_text(result)
    assert f"and {60 - LISTED_ARTIFACTS} more, each in the JSON result" in text
    assert text.count(" test_regression ") == LISTED_ARTIFACTS


def test_a_few_broken_tests_are_cited_by_id(tmp_path: Path):
    """Up to 19: one claim naming each test id, as before; no count line when nothing was cut."""
    base = {k: v for k, v in BASE.items() if "part1" not in k and "part2" not in k}
    case = make_case(tmp_path / "c", base, HEAD, checks={"typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    [claim] = [c for c in result.claims if c.status == "validated"]
    assert claim.claim.evidence_refs[1:] == [f"tests/test_part3.py::test_double_3[{x}]" for x in range(5)]
    assert len(claim.artifacts) == 5
    call = next(t for t in result.tool_calls if t.tool == "run_test")
    assert "BROKEN" not in call.output
