"""Head's pytest collection taken from base's cached one when the change cannot alter it (`pytest_reuse`), and
collected afresh whenever it can: real pytest in the sandbox, real git repositories, the real base cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import git_repo
from showcause.policy import load_policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.service.inputs import open_snapshot, tool_context
from showcause.snapshot.diff import FileChange
from showcause.tools.run_test import allowlist
from showcause.tools.runners.pytest_reuse import reuse_refusal
from showcause.tools.testexec import base_collection
from venvs import review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

CALC = "def add(a, b):\n    return a + b\n"
USES_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PLUGIN_IGNORES_B = ("def pytest_ignore_collect(collection_path, config):\n"
                    "    return collection_path.name == 'test_b.py' or None\n")
BASE = {"calc.py": CALC, "tests/test_calc.py": USES_CALC, "tests/helpers.py": "VALUE = 1\n",
        "tests/test_empty.py": "def helper():\n    return 1\n", "tests/test_b.py": "def test_b():\n    pass\n",
        "tests/calc_check.py": USES_CALC, "conftest.py": "pytest_plugins = ['plug']\n", "plug.py": PLUGIN_IGNORES_B}


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(tmp_path / "cache"))


def _allowlist(repo: Path) -> list[str]:
    with open_snapshot(repo=repo, base="HEAD~1", head="HEAD") as snap:
        return allowlist(tool_context(snap))


def _plant(repo: Path) -> None:
    """Put a file head has but pytest never collects into base's cached pytest files (not its allowlist):
    it shows in head's allowlist only when head's collection was taken from base's."""
    with open_snapshot(repo=repo, base="HEAD~1", head="HEAD") as snap:
        ctx = tool_context(snap)
        cached = base_collection(snap.base, ctx.policy, ctx.env, cached_only=True)
    assert cached is not None
    [entry] = [p for p in (repo.parent / "cache" / "base").glob("*.json") if "sensitive" in p.read_text()]
    entry.write_text(json.dumps({**cached, "pytest": sorted([*cached["pytest"], "tests/helpers.py"])}))


def test_base_records_what_can_change_its_collection(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "p", [BASE])
    found = base_collection(repo, load_policy(), ProjectEnv())
    assert found is not None
    assert (found["files"], found["pytest"]) == (["tests/test_calc.py"], ["tests/test_calc.py"])
    # conftest.py and the plugin it loads; test_empty.py was looked into and held no test; test_b.py was
    # ignored by the plugin (never looked into); helpers.py, calc_check.py and calc.py do not match python_files.
    assert found["sensitive"] == ["conftest.py", "plug.py", "tests/test_empty.py"]


def test_a_change_to_the_code_reuses_bases_collection(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "p", [BASE, {"calc.py": "def add(a, b):\n    return b + a\n"}])
    assert _allowlist(repo) == ["tests/test_calc.py"]   # cold: both trees collected, base cached
    _plant(repo)
    assert _allowlist(repo) == ["tests/helpers.py", "tests/test_calc.py"]   # warm: head's from base's


@pytest.mark.parametrize(("change", "gained"), [
    ({"tests/test_new.py": "def test_new():\n    pass\n"}, "tests/test_new.py"),
    ({"tests/test_empty.py": "def test_now():\n    pass\n"}, "tests/test_empty.py"),
    ({"plug.py": "def pytest_ignore_collect(collection_path, config):\n    return None\n"}, "tests/test_b.py"),
    ({"conftest.py": "collect_ignore = []\n"}, "tests/test_b.py"),
    ({"pytest.ini": "[pytest]\npython_files = test_*.py *_check.py\n"}, "tests/calc_check.py"),
], ids=["added-test-file", "empty-module-gains-a-test", "plugin", "conftest", "ini"])
def test_a_change_that_can_alter_the_collection_collects_head(tmp_path: Path, change: dict[str, str],
                                                               gained: str) -> None:
    repo = git_repo(tmp_path / "p", [BASE, change])
    cold = _allowlist(repo)
    _plant(repo)
    warm = _allowlist(repo)
    assert gained in cold and warm == cold   # collected afresh: the planted file is not there


def test_a_repository_may_turn_reuse_off(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "p", [{**BASE, ".showcause.toml": "[tests]\nreuse_collection = false\n"},
                                     {"calc.py": "def add(a, b):\n    return b + a\n"}])
    _allowlist(repo)
    _plant(repo)
    assert _allowlist(repo) == ["tests/test_calc.py"]


def test_a_warm_review_reusing_the_collection_still_blocks_a_regression(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "p", [BASE])
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    for _ in range(2):   # the second review takes head's collection from base's cached one
        code, doc = review("--repo", str(repo))
        assert (code, doc["verdict"]) == (1, "MODIFY"), json.dumps(doc["tool_calls"], indent=1)
        assert "tests/test_calc.py::test_add" in doc["claims"][0]["claim"]


@pytest.mark.parametrize(("changes", "why"), [
    ({"src/calc.py": "modified", "README.md": "modified", "docs/x.rst": "added"}, None),
    ({"tests/test_calc.py": "modified", "tests/old_test.py": "deleted"}, None),
    ({"pkg/conftest.py": "modified"}, "pkg/conftest.py can change what pytest collects"),
    ({"setup.cfg": "modified"}, "setup.cfg can change what pytest collects"),
    ({"ci/pytest-extra.ini": "added"}, "ci/pytest-extra.ini can change what pytest collects"),
    ({"src/new.py": "added"}, "src/new.py is new (it may be a test file or a plugin)"),
    ({"src/pkg/__init__.py": "deleted"}, "src/pkg/__init__.py is gone (the package layout changed)"),
    ({"plug.py": "modified"}, "plug.py is a plugin pytest loaded, or a file it found no test in on base"),
])
def test_reuse_refusal(changes: dict[str, str], why: str | None) -> None:
    diff = {path: FileChange(path=path, status=status) for path, status in changes.items()}
    assert reuse_refusal(diff, ["plug.py"]) == why
    assert reuse_refusal(diff, None) == "base's collection is not known file by file"


PYPROJECT = '[project]\nname = "calc"\nversion = "{v}"\n\n[tool.pytest.ini_options]\npython_files = [{files}]\n'


@pytest.mark.parametrize(("version", "files", "reused"), [
    ("1.1", '"test_*.py"', True),                    # a release: only the version moved
    ("1.0", '"test_*.py", "*_check.py"', False),     # pytest's own settings moved
])
def test_a_changed_pyproject_is_compared_by_its_pytest_settings(tmp_path: Path, version: str, files: str,
                                                                 reused: bool) -> None:
    repo = git_repo(tmp_path / "p", [{**BASE, "pyproject.toml": PYPROJECT.format(v="1.0", files='"test_*.py"')},
                                     {"pyproject.toml": PYPROJECT.format(v=version, files=files)}])
    cold = _allowlist(repo)
    _plant(repo)
    warm = _allowlist(repo)
    assert ("tests/helpers.py" in warm) is reused
    assert ("tests/calc_check.py" in cold) is not reused and ("tests/calc_check.py" in warm) is not reused
