"""Head against base in `run_test`, through the real CLI and the mechanical judge on real trees (real pytest and
node --test in the sandbox): base runs what head ran, suspected regressions are re-run, a flaky test warns, a
test file that no longer runs on head is a regression, and tests that cannot run at all are INCONCLUSIVE."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders import make_case
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review
from showcause.tools.testexec import run_tests

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
NO_TESTS = "no tests found: only types and references were checked"

CALC: dict[str, str | bytes] = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": '"""Arithmetic."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n',
    "tests/test_calc.py": "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
DOCSTRING_ONLY = {"src/pkg/calc.py": '"""Arithmetic on integers."""\n\n\ndef add(a: int, b: int) -> int:\n'
                                     '    return a + b\n'}
TWO_TESTS = str(CALC["tests/test_calc.py"]) + "\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"
BROKEN_ADD = {"src/pkg/calc.py": '"""Arithmetic."""\n\n\ndef add(a: int, b: int) -> int:\n    return a - b\n'}

ORDER: dict[str, str | bytes] = {
    **CALC,
    "src/pkg/registry.py": '"""Handlers by name."""\n\nHANDLERS: list[str] = []\n\n\ndef register(name: str) -> None:\n'
                           '    HANDLERS.append(name)\n',
    # test_b passes alone, and fails after test_a has filled the module-level list in the same process.
    "tests/test_registry.py": "from pkg.registry import HANDLERS, register\n\n\ndef test_a_registers():\n"
                              "    register('a')\n    assert HANDLERS == ['a']\n\n\ndef test_b_starts_empty():\n"
                              "    assert HANDLERS == []\n",
}

FLAKY_TEST = '''"""Fails in the full run on the changed tree and when re-run on the original tree; passes otherwise.

A real flaky test fails at random; this one makes the pattern exact, so that the review is reproducible.
Nothing persists from one run to the next (each gets a fresh copy of its tree and a private /tmp, and the
sandbox passes no variable a test could count with), so the test decides from what does differ between
runs: the tree it runs in (the change edits only a docstring of src/pkg/money.py) and how pytest was started
(the full run names the file, a re-run names the test id). Head, full run: fails. Base, full run: passes, so
it is suspected of being broken by the change. Re-runs: it passes twice on head and fails twice on base.
Its outcome differs between runs of each tree: flaky.
"""

import sys
from pathlib import Path

HEAD = "to the cent" in (Path(__file__).resolve().parents[1] / "src" / "pkg" / "money.py").read_text()
RERUN = any("::" in arg for arg in sys.argv)


def test_sometimes():
    assert HEAD == RERUN
'''
FLAKY: dict[str, str | bytes] = {
    **CALC,
    "src/pkg/money.py": '"""Money."""\n\n\ndef cents(x: float) -> int:\n    return round(x * 100)\n',
    "tests/test_flaky.py": FLAKY_TEST,
}


def cli(*args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"SHOWCAUSE_CACHE_DIR": str(cache)} if cache else {})}
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=600, env=env)


def review_json(case: Path, *extra: str, cache: Path | None = None) -> tuple[int, dict[str, Any]]:
    proc = cli("review", "--case", str(case), "--format", "json", *extra, cache=cache)
    assert proc.returncode in (0, 1, 3), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def run_test_output(result: dict[str, Any]) -> str:
    return "\n".join(c["output"] for c in result["tool_calls"] if c["tool"] == "run_test")


def case_of(tmp_path: Path, name: str, base: dict[str, str | bytes], head: dict[str, str | bytes | None],
            tests: list[str] | None = None) -> Path:
    return make_case(tmp_path / name, base, head, checks={"tests": tests or [], "typecheck": "none"})


def test_an_order_dependent_failure_on_both_trees_is_pre_existing(tmp_path: Path):
    case = case_of(tmp_path, "order", ORDER, {"src/pkg/registry.py": '"""Handlers by name, in order."""\n\n'
                                              'HANDLERS: list[str] = []\n\n\ndef register(name: str) -> None:\n'
                                              '    HANDLERS.append(name)\n'})
    with open_snapshot(case=case) as snap:
        policy = tool_context(snap).policy
        alone = run_tests(snap.head, ["tests/test_registry.py::test_b_starts_empty"], policy)
    # Alone it passes: re-running only the failing id on base (as run_test once did) called it broken.
    assert [(o.test, o.outcome) for o in alone.outcomes] == [("tests/test_registry.py::test_b_starts_empty", "passed")]
    code, result = review_json(case, cache=tmp_path / "cache")
    out = run_test_output(result)
    assert (code, result["verdict"], result["claims"]) == (0, "KEEP", [])
    assert ("FAILED tests/test_registry.py::test_b_starts_empty [base: failed — already failing before this "
            "change]") in out
    assert "broken by this change" not in out and "base ran the same 2 target(s)" in out


def test_a_real_regression_in_the_same_suite_is_still_caught(tmp_path: Path):
    case = case_of(tmp_path, "order-bad", ORDER, BROKEN_ADD)
    code, result = review_json(case, cache=tmp_path / "cache")
    out = run_test_output(result)
    assert (code, result["verdict"]) == (1, "MODIFY")
    [claim] = result["claims"]
    assert [a["detail"] for a in claim["gate"]["artifacts"]] == [
        "tests/test_calc.py::test_add: failed — assert -1 == 5"]
    assert ("FAILED tests/test_calc.py::test_add [base: passed — broken by this change] (failed all 3 runs on head, "
            "passed all 3 on base)") in out
    assert "FAILED tests/test_registry.py::test_b_starts_empty [base: failed — already failing" in out


@pytest.mark.parametrize(("reruns", "warm_runs"), [(2, "failed all 3 runs on head, passed all 3 on base"),
                                                 (0, "failed all 1 runs on head, passed all 2 on base")])
def test_a_cached_base_pass_counts_as_one_run_but_never_decides_alone(tmp_path: Path, reruns: int,
                                                                       warm_runs: str):
    """Warm, the stored base pass is one of base's outcomes (as many as a cold review has), and with no
    re-runs at all base still runs once afresh before the regression blocks."""
    case = case_of(tmp_path, "warm", ORDER, BROKEN_ADD)
    config = tmp_path / "showcause.toml"
    config.write_text(f"[tests]\ntest_reruns = {reruns}\n", encoding="utf-8")
    cold_code, cold = review_json(case, "--config", str(config), cache=tmp_path / "cache")
    warm_code, warm = review_json(case, "--config", str(config), cache=tmp_path / "cache")
    assert (cold_code, warm_code) == (1, 1)
    assert "from the base cache" not in run_test_output(cold)
    assert "from the base cache" in run_test_output(warm)
    line = next(x for x in run_test_output(warm).splitlines() if x.startswith("FAILED tests/test_calc.py::test_add"))
    assert f"[base: passed — broken by this change] ({warm_runs}) — assert -1 == 5" in line


def test_a_flaky_test_warns_with_both_outcomes_and_is_not_cached_as_a_pass(tmp_path: Path):
    head = {"src/pkg/money.py": '"""Money, rounded to the cent."""\n\n\ndef cents(x: float) -> int:\n'
                                '    return round(x * 100)\n'}
    case = case_of(tmp_path, "flaky", FLAKY, head)
    cache = tmp_path / "cache"
    code, result = review_json(case, cache=cache)
    assert (code, result["verdict"]) == (0, "WARNING")
    [claim] = result["claims"]
    assert claim["claim"] == ("Flaky tests, their outcome differing between runs of the same tree: "
                              "tests/test_flaky.py::test_sometimes (head: failed, passed, passed; base: passed, "
                              "failed, failed). They do not show that the change broke anything, nor that it did not.")
    assert claim["gate"]["artifacts"] == [] and all(c["artifacts"] == [] for c in result["tool_calls"])
    run = next(c for c in result["tool_calls"] if c["tool"] == "run_test")
    assert {"test": "tests/test_flaky.py::test_sometimes", "head": "failed", "base": "passed", "flaky": True,
            "runs": {"head": ["failed", "passed", "passed"], "base": ["passed", "failed", "failed"]}} in run["results"]
    # The base pass of the full run was cached, and the entry now says the test is flaky on that tree: a later
    # review against the same base is told so, never served the pass.
    code, again = review_json(case, cache=cache)
    out = run_test_output(again)
    assert (code, again["verdict"]) == (0, "WARNING")
    assert "(from the base cache)" in out and ("FLAKY tests/test_flaky.py::test_sometimes [head: failed; base: "
                                               "passed, failed, failed (on base: as an earlier review recorded)") in out
    # Without re-runs (the single run of old) the same change is blocked by the flaky test.
    config = tmp_path / "once.toml"
    config.write_text("[tests]\ntest_reruns = 0\n", encoding="utf-8")
    code, once = review_json(case, "--config", str(config), cache=cache)
    assert (code, once["verdict"]) == (1, "MODIFY")
    assert ("FAILED tests/test_flaky.py::test_sometimes [base: passed — broken by this change] — "
            in run_test_output(once))


@pytest.mark.parametrize(("added", "error"), [
    ({"tests/conftest.py": "raise RuntimeError('conftest is broken')\n"}, "RuntimeError: conftest is broken"),
    ({"tests/conftest.py": "import os\n\nos._exit(0)\n"}, "no result on head: no test results (exit 0)"),
    ({"tests/test_calc.py": "import pkg.nowhere\n\n\ndef test_add():\n    pass\n"},
     "ModuleNotFoundError: No module named 'pkg.nowhere'"),
], ids=["conftest-raises", "conftest-exits-0", "test-module-import-error"])
def test_a_test_file_that_no_longer_runs_on_head_is_a_regression(tmp_path: Path, added: dict[str, str | None],
                                                                 error: str):
    case = case_of(tmp_path, "crash", CALC, {**DOCSTRING_ONLY, **added})
    code, result = review_json(case, cache=tmp_path / "cache")
    assert (code, result["verdict"]) == (1, "MODIFY"), run_test_output(result)
    [claim] = result["claims"]
    [artifact] = claim["gate"]["artifacts"]
    assert artifact["type"] == "test_regression" and artifact["file"] == "tests/test_calc.py"
    assert artifact["detail"].startswith("tests/test_calc.py") and error in artifact["detail"]
    assert "[base: passed — broken by this change] (failed all 3 runs on head, passed all 3 on base)" in \
        run_test_output(result)


def test_a_node_test_file_that_exits_before_its_tests_is_a_regression(tmp_path: Path):
    base: dict[str, str | bytes] = {
        "package.json": '{"type": "module"}\n',
        "src/sum.js": "export function sum(a, b) {\n  return a + b;\n}\n",
        "test/sum.test.js": "import test from 'node:test';\nimport assert from 'node:assert';\n"
                            "import { sum } from '../src/sum.js';\n\n"
                            "test('sums', () => {\n  assert.equal(sum(1, 2), 3);\n});\n"}
    head = {"src/sum.js": "// Sums.\nexport function sum(a, b) {\n  return a + b;\n}\n",
            "test/sum.test.js": "process.exit(0);\n" + str(base["test/sum.test.js"])}
    case = make_case(tmp_path / "node", base, head, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    assert [a.detail for c in result.claims for a in c.artifacts] == [
        "test/sum.test.js: error — the file exited before any of its tests reported"]


def test_deleted_tests_are_not_failures(tmp_path: Path):
    base = {**CALC, "tests/test_old.py": "def test_old():\n    assert True\n"}
    discovered = case_of(tmp_path, "gone", base, {"tests/test_old.py": None, **DOCSTRING_ONLY})
    listed = case_of(tmp_path, "listed", base, {"tests/test_old.py": None, **DOCSTRING_ONLY},
                     tests=["tests/test_calc.py", "tests/test_old.py"])
    with open_snapshot(case=discovered) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert (result.verdict, result.claims) == ("KEEP", [])
    assert [c.args for c in result.tool_calls if c.tool == "run_test"] == [{"test": ["tests/test_calc.py"]}]
    with open_snapshot(case=listed) as snap:
        result = run_review(tool_context(snap), "mechanical")
    [call] = [c for c in result.tool_calls if c.tool == "run_test"]
    assert (result.verdict, call.ok) == ("KEEP", True)
    assert "DELETED tests/test_old.py [removed by this change: not run, not a failure]" in call.output
    assert call.results == [{"test": "tests/test_calc.py::test_add", "head": "passed", "base": None}]
    # A test function deleted from a file that still runs is not one either.
    fewer = case_of(tmp_path, "fewer", {**CALC, "tests/test_calc.py": TWO_TESTS},
                    {**DOCSTRING_ONLY, "tests/test_calc.py": CALC["tests/test_calc.py"]})
    with open_snapshot(case=fewer) as snap:
        assert run_review(tool_context(snap), "mechanical").verdict == "KEEP"


TWO_CLASSES = "\n".join([
    "from pkg.calc import add", "", "",
    "class TestSmall:", "    def test_same(self):", "        assert add(1, 1) == 2", "",
    "    def test_small_only(self):", "        assert add(0, 1) == 1", "", "",
    "class TestLarge:", "    def test_same(self):", "        assert add(100, 1) == 101", ""])


PATCHING_CLASSES = TWO_CLASSES.replace("def test_same(self):\n", "def test_same(self, monkeypatch):\n"
                                      "        monkeypatch.setattr('os.sep', '/')\n")
UNITTEST_CLASSES = ("from unittest import TestCase\n\n" + TWO_CLASSES).replace(
    "class TestSmall:", "class TestSmall(TestCase):").replace("class TestLarge:", "class TestLarge(TestCase):")


@pytest.mark.parametrize(("base", "head"), [
    (TWO_CLASSES, TWO_CLASSES.replace("    def test_same(self):\n        assert add(1, 1) == 2\n\n", "", 1)),
    (TWO_CLASSES, TWO_CLASSES.replace("class TestSmall:", "class TestSmaller:")),
    # unittest classes (more-itertools): unittest.TestCase defines no tests, and a longer name is another name
    (UNITTEST_CLASSES, UNITTEST_CLASSES.replace("def test_same(self):\n        assert add(1, 1)",
                                                "def test_same_renamed(self):\n        assert add(1, 1)", 1)),
    (UNITTEST_CLASSES, UNITTEST_CLASSES.replace("    def test_same(self):\n        assert add(1, 1) == 2\n\n", "", 1)),
    # packaging: every class patches with monkeypatch.setattr, which defines no test of the file's
    (PATCHING_CLASSES, PATCHING_CLASSES.replace("def test_same(self, monkeypatch):\n        monkeypatch",
                                                "def test_same_renamed(self, monkeypatch):\n        monkeypatch", 1)),
], ids=["method-deleted", "class-renamed", "unittest-method-renamed", "unittest-method-deleted",
        "monkeypatching-method-renamed"])
def test_a_deleted_test_whose_name_lives_on_in_another_class_is_not_a_failure(tmp_path: Path, base: str, head: str):
    """A test is known by its full id: deleting TestSmall::test_same is not hidden or turned into a lost test
    by TestLarge::test_same, which still exists (jinja, more-itertools)."""
    assert head != base
    case = case_of(tmp_path, "del", {**CALC, "tests/test_calc.py": base},
                   {**DOCSTRING_ONLY, "tests/test_calc.py": head})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert (result.verdict, result.claims) == ("KEEP", [])


def test_a_test_still_in_its_file_that_gives_no_result_on_head_is_a_regression(tmp_path: Path):
    deselect = ("def pytest_collection_modifyitems(items):\n"
                "    items[:] = [i for i in items if i.name != 'test_add_zero']\n")
    case = case_of(tmp_path, "lost", {**CALC, "tests/test_calc.py": TWO_TESTS},
                   {**DOCSTRING_ONLY, "tests/conftest.py": deselect})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    assert [a.subject for c in result.claims for a in c.artifacts] == ["tests/test_calc.py::test_add_zero"]
    assert [a.detail.split(" — ", 1)[1].split(":", 1)[0] for c in result.claims for a in c.artifacts] == [
        "no result on head"]


def test_a_test_id_new_on_head_does_not_stop_the_base_run(tmp_path: Path):
    head = {"tests/test_calc.py": str(CALC["tests/test_calc.py"]) + "\n\ndef test_new():\n    assert add(1, 1) == 3\n"}
    case = case_of(tmp_path, "newid", CALC, {**BROKEN_ADD, **head})
    with open_snapshot(case=case) as snap:
        call = Ledger(tool_context(snap)).call("run_test", {"test": ["tests/test_calc.py::test_add",
                                                                     "tests/test_calc.py::test_new"]})
    # pytest runs nothing when one id is not found: base leaves out the new id and runs test_add.
    assert [(r["test"], r["head"], r["base"]) for r in call.results] == [
        ("tests/test_calc.py::test_add", "failed", "passed"), ("tests/test_calc.py::test_new", "failed", None)]
    assert sorted(a.subject for a in call.artifacts) == ["tests/test_calc.py::test_add", "tests/test_calc.py::test_new"]


def test_tests_that_cannot_run_on_either_tree_are_inconclusive(tmp_path: Path):
    base = {**CALC, "tests/test_api.py": "import requests_showcause_absent\n\n\ndef test_get():\n    assert True\n"}
    case = case_of(tmp_path, "unrunnable", base, DOCSTRING_ONLY, tests=["tests/test_api.py"])
    code, result = review_json(case, cache=tmp_path / "cache")
    assert (code, result["verdict"]) == (3, "INCONCLUSIVE")
    error = result["error"]
    assert error["code"] == "PROBE_UNRUNNABLE"
    assert error["message"].startswith("tests/test_api.py: ModuleNotFoundError: No module named "
                                       "'requests_showcause_absent' — no test ran to an outcome")
    fix = "run with --python PATH (the project's interpreter) or install the project's dependencies"
    assert error["message"].endswith(fix)
    text = cli("review", "--case", str(case), cache=tmp_path / "cache")
    assert text.returncode == 3
    assert f"error PROBE_UNRUNNABLE: {error['message']}" in text.stdout.splitlines()
    # Tests that ran and failed on both trees are pre-existing failures, not missing evidence.
    red = case_of(tmp_path, "red", {**CALC, "tests/test_calc.py": "def test_add():\n    assert 1 == 2\n"},
                  DOCSTRING_ONLY)
    code, result = review_json(red, cache=tmp_path / "cache")
    assert (code, result["verdict"], result.get("error")) == (0, "KEEP", None)


@pytest.mark.parametrize("fmt", ["text", "markdown", "github", "sarif", "json"])
def test_no_tests_at_all_is_keep_and_says_so(tmp_path: Path, fmt: str):
    base = {k: v for k, v in CALC.items() if not k.startswith("tests/")}
    case = case_of(tmp_path, "notests", base, DOCSTRING_ONLY)
    proc = cli("review", "--case", str(case), "--format", fmt, cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr
    if fmt == "json":
        doc = json.loads(proc.stdout)
        assert doc["verdict"] == "KEEP" and NO_TESTS in doc["summary"] and doc["meta"]["notes"] == [NO_TESTS]
    elif fmt == "sarif":
        run = json.loads(proc.stdout)["runs"][0]
        assert run["properties"]["verdict"] == "KEEP" and run["properties"]["notes"] == [NO_TESTS]
        assert {"level": "note", "message": {"text": NO_TESTS}} in run["invocations"][0]["toolExecutionNotifications"]
    else:
        assert NO_TESTS in proc.stdout and "KEEP" in proc.stdout
    if fmt == "github":
        assert f"::notice title=showcause::{NO_TESTS}" in proc.stdout.splitlines()


def test_what_the_source_cannot_say_falls_back_to_the_name():
    """A test a decorator, a metaclass, a base from elsewhere or setattr may add at run time is never judged
    deleted from the source alone (`None`: the text check decides); a plain class that lacks it has lost it,
    and so has a class whose bases are unittest's or this file's own and define no such test."""
    from showcause.tools.testpresence import defined

    src = (b"import unittest\nfrom unittest import TestCase\nfrom helpers import Base\n\n\n"
           b"@decorate\nclass TestD:\n    pass\n\n\nclass TestM(metaclass=Meta):\n    pass\n\n\n"
           b"class TestI(Base):\n    pass\n\n\nclass TestA:\n    def test_x(self):\n        pass\n\n\n"
           b"class TestB:\n    def test_y(self):\n        pass\n\n\n"
           b"class TestU(TestCase):\n    pass\n\n\nclass TestV(unittest.TestCase):\n    pass\n\n\n"
           b"class TestL(TestA, TestCase):\n    pass\n")
    cases = [["TestD", "test_g"], ["TestM", "test_g"], ["TestI", "t"], ["TestB", "test_x"], ["TestA", "test_x"],
             ["TestU", "test_x"], ["TestV", "test_x"], ["TestL", "test_x"], ["TestL", "test_y"], ["test_top"]]
    assert [defined(src, c) for c in cases] == [None, None, None, False, True, False, False, True, False, False]
    assert defined(b"class T:\n    pass\n\n\nsetattr(T, 'test_x', f)\n", ["T", "test_x"]) is None
    assert defined(b"class T:\n    pass\n\n\nglobals()['test_x'] = f\n", ["test_x"]) is None
    # A test's own monkeypatch.setattr sets nothing of the file's (packaging: a renamed TestSysTags method
    # whose name TestManylinuxPlatform also has was read as still there, and blocked as "no result on head").
    patched = b"class T:\n    def test_y(self, monkeypatch):\n        monkeypatch.setattr(m, 'x', 1)\n"
    assert [defined(patched, ["T", n]) for n in ("test_x", "test_y")] == [False, True]
    # A TestCase the file defines or imports from elsewhere is not unittest's.
    assert defined(b"from mytest import TestCase\n\n\nclass T(TestCase):\n    pass\n", ["T", "test_x"]) is None


def test_the_name_text_matches_only_a_whole_identifier(tmp_path: Path):
    from showcause.tools.testpresence import named_in

    (tmp_path / "t.js").write_text("it('test_default_renamed', () => {})\nconst x = test_other;\n")
    assert [named_in(tmp_path, f"t.js::{n}") for n in ("test_default", "test_other", "test_default_renamed")] == [
        False, True, True]


def test_more_than_nineteen_broken_tests_are_cited_by_the_call_in_a_claim_naming_their_file(tmp_path: Path):
    many = "import pytest\n\nfrom pkg.calc import add\n\n\n@pytest.mark.parametrize('n', range(25))\n" \
           "def test_add(n):\n    assert add(n, 1) == n + 1\n"
    case = case_of(tmp_path, "many", {**CALC, "tests/test_calc.py": many}, BROKEN_ADD)
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    [claim] = result.claims
    assert claim.status == "validated" and claim.claim.evidence_refs == ["T1"]
    assert sorted(a.subject for a in claim.artifacts) == sorted(f"tests/test_calc.py::test_add[{n}]" for n in range(25))
    said = "The change breaks 25 tests, in tests/test_calc.py (25) (T1's results name each)"
    assert claim.claim.claim.startswith(said)
