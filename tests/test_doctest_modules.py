"""Doctests the project's pytest runs are run: by its config's `addopts`, or by `[tests] pytest_args` where its
CI gives `--doctest-modules` on the command line; a project that runs no doctests is not judged by them."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.core.errors import InputError
from showcause.policy import load_policy
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

MODULE = 'def double(x):\n    """Twice x.\n\n    >>> double(2)\n    4\n    """\n    return x * 2\n'
TEST = "from pkg.calc import double\n\n\ndef test_zero():\n    assert double(0) == 0\n"
PYPROJECT = '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
BROKEN = {"src/pkg/calc.py": MODULE.replace("return x * 2", "return x * 2 + (x == 2)")}


def _review(tmp_path: Path, extra: dict[str, str | bytes]):
    base = {"pyproject.toml": PYPROJECT, "src/pkg/__init__.py": "", "src/pkg/calc.py": MODULE,
            "tests/test_calc.py": TEST, **extra}
    case = make_case(tmp_path / "case", base, BROKEN, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        return run_review(tool_context(snap), "mechanical")


@pytest.mark.parametrize("extra", [
    {"pyproject.toml": PYPROJECT + 'addopts = "--doctest-modules"\n'},
    {".showcause.toml": '[tests]\npytest_args = ["--doctest-modules"]\n'},
], ids=["addopts", "pytest_args"])
def test_a_broken_doctest_the_project_runs_blocks_citing_it(tmp_path: Path, extra: dict[str, str | bytes]) -> None:
    result = _review(tmp_path, extra)
    assert result.verdict == "MODIFY"
    assert [a.subject for c in result.claims for a in c.artifacts] == ["src/pkg/calc.py::pkg.calc.double"]


def test_doctests_the_project_does_not_run_do_not_judge_the_change(tmp_path: Path) -> None:
    result = _review(tmp_path, {})
    assert (result.verdict, result.claims) == ("KEEP", [])


@pytest.mark.parametrize("args", [["tests"], ["--"], ["-x", "src/pkg"]])
def test_pytest_args_take_options_only(tmp_path: Path, args: list[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f"[tests]\npytest_args = {args!r}\n".replace("'", '"'), encoding="utf-8")
    with pytest.raises(InputError, match="is not an option"):
        load_policy(config)
