"""The Python allowlist is what pytest itself collects, in the sandbox: `python_files`, `testpaths`, unittest
classes, and the packages of a monorepo each collected and run in their own directory with their own settings,
with test ids relative to the repository root. Each gives its exact allowlist and a caught regression."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import git_repo, write_tree
from showcause.policy import load_policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.pytest_runner import PytestRunner
from showcause.tools.testexec import allowed_tests
from venvs import cli, review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

CALC = "def add(a, b):\n    return a + b\n"
CALC_BROKEN = "def add(a, b):\n    return a - b\n"
USES_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
UNITTEST = ("import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n"
            "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n")


def _allowlist(tree: Path) -> list[str]:
    return allowed_tests(tree, load_policy(), ProjectEnv())


def _caught(tree: Path, files: dict[str, str], test_id: str) -> None:
    """`files` changed in the working tree of the committed `tree` make a MODIFY naming `test_id`."""
    write_tree(tree, files)
    code, doc = review("--repo", str(tree))
    assert (code, doc["verdict"]) == (1, "MODIFY"), json.dumps(doc["tool_calls"], indent=1)
    assert test_id in doc["claims"][0]["claim"] and doc["claims"][0]["gate"]["status"] == "validated"


@pytest.mark.parametrize(("files", "allowlist", "test_id"), [
    ({"pytest.ini": "[pytest]\npython_files = *_test.py\n", "test/calc_test.py": USES_CALC,
      "test/test_decoy.py": "def test_decoy():\n    pass\n", "test/helpers.py": ""},
     ["test/calc_test.py"], "test/calc_test.py::test_add"),
    ({"pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["checks"]\n', "checks/test_a.py": USES_CALC,
      "tests/test_b.py": "def test_b():\n    pass\n"},
     ["checks/test_a.py"], "checks/test_a.py::test_add"),
    ({"test/add_test.py": UNITTEST, "tests/test_plain.py": "def test_plain():\n    pass\n"},
     ["test/add_test.py", "tests/test_plain.py"], "test/add_test.py::AddTest::test_add"),
], ids=["python_files", "testpaths", "unittest"])
def test_pytests_own_settings_make_the_allowlist(tmp_path: Path, files: dict[str, str], allowlist: list[str],
                                                 test_id: str) -> None:
    tree = git_repo(tmp_path / "p", [{"calc.py": CALC, **files}])
    assert _allowlist(tree) == allowlist
    _caught(tree, {"calc.py": CALC_BROKEN}, test_id)


def _package_a(n: int) -> dict[str, str]:
    files = {"packages/a/pyproject.toml": ('[project]\nname = "a"\nversion = "0"\n\n[tool.pytest.ini_options]\n'
                                           'testpaths = ["tests"]\npythonpath = ["src"]\n'),
             "packages/a/src/apkg/__init__.py": "",
             "packages/a/src/apkg/core.py": "def double(x):\n    return 2 * x\n",
             "packages/a/src/apkg/other.py": "def one():\n    return 1\n",
             "packages/a/tests/test_core.py": "from apkg.core import double\n\n\ndef test_double():\n"
                                              "    assert double(4) == 8\n"}
    files.update({f"packages/a/tests/test_other{i}.py": "from apkg.other import one\n\n\ndef test_one():\n"
                  "    assert one() == 1\n" for i in range(n)})
    return files


def _package_b(n: int) -> dict[str, str]:
    # Its own python_files and testpaths, and tests that read a file relative to the package's directory.
    files = {"packages/b/setup.cfg": "[metadata]\nname = b\n\n[tool:pytest]\npython_files = check_*.py\n"
                                     "testpaths = checks\n",
             "packages/b/data.txt": "b-data",
             "packages/b/checks/test_not_collected.py": "def test_never():\n    raise AssertionError\n"}
    files.update({f"packages/b/checks/check_{i}.py": "def test_data():\n"
                  "    assert open('data.txt').read() == 'b-data'\n" for i in range(n)})
    return files


def test_a_monorepos_packages_run_in_their_own_directories_with_root_relative_ids(tmp_path: Path) -> None:
    tree = git_repo(tmp_path / "mono", [{**_package_a(4), **_package_b(4), "README.md": "two packages\n"}])
    a_tests = ["packages/a/tests/test_core.py", *(f"packages/a/tests/test_other{i}.py" for i in range(4))]
    b_tests = [f"packages/b/checks/check_{i}.py" for i in range(4)]
    assert _allowlist(tree) == sorted(a_tests + b_tests)
    proc = cli("tools", "run", "run_test", "--repo", str(tree), "--json",
               "--args", json.dumps({"test": [b_tests[0], "packages/a/tests/test_core.py::test_double"]}))
    record = json.loads(proc.stdout)
    assert [(r["test"], r["head"]) for r in record["results"]] == [
        ("packages/a/tests/test_core.py::test_double", "passed"), ("packages/b/checks/check_0.py::test_data",
                                                                   "passed")], record["output"]
    write_tree(tree, {"packages/a/src/apkg/core.py": "def double(x):\n    return 2 + x\n"})
    code, doc = review("--repo", str(tree))
    assert (code, doc["verdict"]) == (1, "MODIFY"), doc["summary"]
    assert "packages/a/tests/test_core.py::test_double" in doc["claims"][0]["claim"]
    # Affected-test selection reads the same root-relative ids: only the test importing core.py runs.
    assert "1 test file(s) (1 of 9 test files import the changed code)" in doc["summary"]
    assert doc["tool_calls"][0]["args"] == {"test": ["packages/a/tests/test_core.py"]}
    assert "/ws/" not in json.dumps(doc["tool_calls"])


def test_files_that_fail_to_collect_are_error_rows_and_stay_allowlisted(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "p", {"tests/test_ok.py": "def test_ok():\n    pass\n",
                                       "tests/test_broken.py": "import no_such_module_here\n"})
    found = PytestRunner().collect(tree, load_policy(), ProjectEnv())
    assert found.files == ("tests/test_broken.py", "tests/test_ok.py")
    assert [(e.test, e.outcome) for e in found.errors] == [("tests/test_broken.py", "error")]
    assert "ModuleNotFoundError: No module named 'no_such_module_here'" in found.errors[0].message


def test_a_collection_that_fails_as_a_whole_falls_back_to_the_globs(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "p", {"conftest.py": "raise RuntimeError('conftest is broken')\n",
                                       "tests/test_ok.py": "def test_ok():\n    pass\n",
                                       "other/test_elsewhere.py": "def test_elsewhere():\n    pass\n"})
    found = PytestRunner().collect(tree, load_policy(), ProjectEnv())
    assert found.files == ("tests/test_ok.py",)   # the policy's globs: tests/test_*.py, tests/**/test_*.py
    assert len(found.errors) == 1 and found.errors[0].test == "<collection>"
    assert found.errors[0].message.startswith("pytest's collection failed (exit 4): ")
    assert "conftest is broken" in found.errors[0].message


def test_the_base_allowlist_comes_from_the_base_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(cache))
    tree = write_tree(tmp_path / "p", {"tests/test_ok.py": "def test_ok():\n    pass\n"})
    policy, env = load_policy(), ProjectEnv()
    assert allowed_tests(tree, policy, env, base=True) == ["tests/test_ok.py"]
    [entry] = list((cache / "base").glob("*.json"))
    assert json.loads(entry.read_text()) == {"files": ["tests/test_ok.py"], "pytest": ["tests/test_ok.py"],
                                             "sensitive": []}
    entry.write_text(json.dumps({"files": ["tests/test_from_the_cache.py"], "pytest": [], "sensitive": []}))
    assert allowed_tests(tree, policy, env, base=True) == ["tests/test_from_the_cache.py"]
    assert allowed_tests(tree, policy, env) == ["tests/test_ok.py"]   # head: always collected afresh
