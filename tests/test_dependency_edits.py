"""A change to the project's dependencies is a WARNING: base and head ran in one environment, so head's new or
changed dependencies were not installed. Found in the text of the changed lines only."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.analysis.depfiles import dependency_edits
from showcause.service.inputs import open_snapshot
from venvs import review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

PYPROJECT = ('[project]\nname = "x"\nversion = "1"\ndependencies = [\n  "attrs>=23",\n]\n\n'
             '[project.optional-dependencies]\ntest = ["pytest"]\n\n[tool.ruff]\nline-length = 100\n\n'
             '[tool.poetry.group.dev.dependencies]\nblack = "^24"\n')
PACKAGE = '{\n  "name": "m",\n  "scripts": {"test": "node --test"},\n  "dependencies": {\n    "a": "1.0.0"\n  }\n}\n'
SETUP_CFG = "[metadata]\nname = x\n\n[options]\npackages = find:\ninstall_requires =\n    attrs\n\n[flake8]\nmax = 9\n"
SETUP_PY = ('from setuptools import setup\n\nsetup(\n    name="x",\n    install_requires=[\n        "attrs",\n'
            '    ],\n)\n')
BASE = {"pyproject.toml": PYPROJECT, "package.json": PACKAGE, "setup.cfg": SETUP_CFG, "setup.py": SETUP_PY,
        "requirements-dev.txt": "pytest\n", "uv.lock": "version = 1\n", "yarn.lock": "# yarn\n", "a.py": "x = 1\n"}


@pytest.mark.parametrize(("head", "edits"), [
    ({"pyproject.toml": PYPROJECT.replace('"attrs>=23",', '"attrs>=23",\n  "requests",')},
     ["pyproject.toml ([project] dependencies)"]),
    ({"pyproject.toml": PYPROJECT.replace('["pytest"]', '["pytest", "hypothesis"]').replace('"^24"', '"^25"')},
     ["pyproject.toml ([project.optional-dependencies])", "pyproject.toml ([tool.poetry.group.dev.dependencies])"]),
    ({"pyproject.toml": PYPROJECT.replace("100", "120").replace('"1"', '"2"')}, []),
    ({"package.json": PACKAGE.replace('"1.0.0"', '"2.0.0"')}, ["package.json (dependencies)"]),
    ({"package.json": PACKAGE.replace("node --test", "node --test --x")}, []),
    ({"setup.cfg": SETUP_CFG.replace("    attrs\n", "    attrs\n    requests\n")},
     ["setup.cfg ([options] install_requires)"]),
    ({"setup.cfg": SETUP_CFG.replace("max = 9", "max = 10")}, []),
    ({"setup.py": SETUP_PY.replace('"attrs",', '"attrs>=23",')}, ["setup.py (install_requires)"]),
    ({"setup.py": SETUP_PY.replace('name="x"', 'name="y"')}, []),
    ({"requirements-dev.txt": "pytest\nhypothesis\n", "uv.lock": "version = 2\n", "yarn.lock": None},
     ["requirements-dev.txt", "uv.lock", "yarn.lock"]),
    # the documentation build's requirements (tomlkit 0.13.2 bumped docs/requirements.*): no test imports them
    ({"docs/requirements.txt": "sphinx==8\n", "docs/requirements.in": "sphinx\n", "requirements/docs.txt": "furo\n",
      "requirements/tests.txt": "pytest\n"}, ["requirements/tests.txt"]),
    ({"a.py": "x = 2\n"}, []),
], ids=["project-deps", "extras-and-poetry", "pyproject-other", "package-deps", "package-scripts", "setup-cfg",
        "setup-cfg-other", "setup-py", "setup-py-other", "files", "docs-requirements", "code"])
def test_what_counts_as_a_dependency_edit(tmp_path: Path, head: dict[str, str | None], edits: list[str]) -> None:
    with open_snapshot(case=make_case(tmp_path / "c", BASE, head)) as snap:
        assert dependency_edits(snap) == edits


def test_the_mechanical_review_says_head_dependencies_were_not_installed(tmp_path: Path) -> None:
    head = {"pyproject.toml": PYPROJECT.replace('"attrs>=23",', '"attrs>=24",'), "a.py": "x = 2\n"}
    case = make_case(tmp_path / "c", BASE, head, checks={"tests": [], "typecheck": "none"})
    code, doc = review("--case", str(case))
    assert (code, doc["verdict"]) == (0, "WARNING")
    [claim] = doc["claims"]
    assert claim["claim"] == ("The change edits dependencies (pyproject.toml ([project] dependencies)); tests and type "
                              "checks ran in the same environment for base and head, so head's new or changed "
                              "dependencies are not installed and what uses them is not verified.")
    assert (claim["verdict"], claim["result"], claim["location"]) == ("WARNING", "unable_to_verify", "pyproject.toml")
