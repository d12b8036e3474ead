"""The mechanical judge type-checks Python only where the project is set up for it (a checker's config or types
it ships), says so where it is not, and the policy can ask for it anyway."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.judges.mechanical import NO_TESTS
from showcause.policy import load_policy
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review
from showcause.tools.typesetup import NO_TYPE_SETUP, checkers_for_project

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

BASE = {"src/pkg/__init__.py": "", "src/pkg/calc.py": "def double(x: int) -> int:\n    return x * 2\n"}
HEAD = {"src/pkg/calc.py": "def double(x: int) -> int:\n    return str(x * 2)\n"}   # a new type error


@pytest.mark.parametrize(("extra", "expected"), [
    ({}, ([], ["pyright"])),
    ({"src/pkg/py.typed": ""}, (["pyright"], [])),
    ({"src/pkg/calc.pyi": "def double(x: int) -> int: ...\n"}, (["pyright"], [])),
    ({"pyrightconfig.json": "{}"}, (["pyright"], [])),
    ({"mypy.ini": "[mypy]\n"}, (["pyright"], [])),
    ({"pyproject.toml": "[project]\nname = 'p'\n\n[tool.mypy]\nstrict = true\n"}, (["pyright"], [])),
    ({"pyproject.toml": "[project]\nname = 'p'\n"}, ([], ["pyright"])),
    ({"setup.cfg": "[metadata]\nname = p\n\n[mypy]\n"}, (["pyright"], [])),
    ({".venv/lib/site-packages/x/py.typed": ""}, ([], ["pyright"])),   # an environment's types are not its own
], ids=["none", "py.typed", "stub", "pyrightconfig", "mypy.ini", "tool.mypy", "bare-pyproject", "setup.cfg", "venv"])
def test_a_set_up_is_a_checkers_config_or_shipped_types(tmp_path: Path, extra: dict[str, str], expected: tuple) -> None:
    for rel, text in {**BASE, **extra}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert checkers_for_project(tmp_path, "auto") == expected
    assert checkers_for_project(tmp_path, "auto", without_setup=True) == (["pyright"], [])
    assert checkers_for_project(tmp_path, "pyright") == (["pyright"], [])


def _review(tmp_path: Path, base: dict[str, str | bytes], config: Path | None = None):
    case = make_case(tmp_path / "case", base, HEAD, checks={"tests": [], "typecheck": "auto"})
    with open_snapshot(case=case) as snap:
        return run_review(tool_context(snap, config=config), "mechanical")


def test_an_untyped_project_is_not_type_checked_and_the_review_says_so(tmp_path: Path) -> None:
    result = _review(tmp_path, BASE)
    assert (result.verdict, [c.tool for c in result.tool_calls]) == ("KEEP", [])
    assert result.meta.notes == [NO_TESTS, NO_TYPE_SETUP]


def test_a_typed_project_or_the_policy_gets_the_differential_typecheck(tmp_path: Path) -> None:
    typed = _review(tmp_path / "typed", {**BASE, "src/pkg/py.typed": ""})
    config = tmp_path / "user.toml"
    config.write_text("[process]\ntypecheck_needs_setup = false\n", encoding="utf-8")
    asked = _review(tmp_path / "asked", BASE, config)
    for result in (typed, asked):
        assert result.verdict == "MODIFY"
        assert [a.type for c in result.claims for a in c.artifacts] == ["new_type_error"]
    assert load_policy(config).process.typecheck_needs_setup is False


def test_a_change_that_deletes_the_set_up_is_still_type_checked(tmp_path: Path) -> None:
    """The set-up of base counts: removing `py.typed` must not let a change escape the check it brings."""
    case = make_case(tmp_path / "case", {**BASE, "src/pkg/py.typed": "partial\n"}, {**HEAD, "src/pkg/py.typed": None},
                     checks={"tests": [], "typecheck": "auto"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    assert [a.type for c in result.claims for a in c.artifacts] == ["new_type_error"]
