"""The mechanical judge's test selection (the tree-sitter import graph) and its claims."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review
from showcause.tools.selection import affected_tests

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


def _project(n_other: int) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        "src/pkg/__init__.py": "from pkg import money\n",
        "src/pkg/money.py": "def cents(x: float) -> int:\n    return round(x * 100)\n",
        "src/pkg/text.py": "def shout(s: str) -> str:\n    return s.upper()\n",
        "tests/test_direct.py": "from pkg.money import cents\n\n\ndef test_cents():\n    assert cents(1.5) == 150\n",
        "tests/test_via_package.py": "from pkg import money\n\n\ndef test_pkg():\n    assert money.cents(2) == 200\n",
        "tests/test_init.py": "import pkg\n\n\ndef test_init():\n    assert pkg.money.cents(0.01) == 1\n",
        "docs/CHANGELOG.md": "- money\n",
    }
    for i in range(n_other):
        files[f"tests/test_text_{i}.py"] = (f"from pkg.text import shout\n\n\ndef test_{i}():\n"
                                            f"    assert shout('a{i}') == 'A{i}'\n")
    return files


def test_only_tests_reaching_the_change_run(tmp_path: Path):
    base = _project(8)
    case = make_case(tmp_path / "c", base,
                     {"src/pkg/money.py": "def cents(x: float) -> int:\n    return int(x * 100)\n",
                      "docs/CHANGELOG.md": "- money, truncating\n"})
    with open_snapshot(case=case) as snap:
        tests, why = affected_tests(tool_context(snap))
    assert tests == ["tests/test_direct.py", "tests/test_init.py", "tests/test_via_package.py"]
    assert why == "3 of 11 test files import the changed code"


def test_tests_reached_through_conftest_plugins_and_importlib_run(tmp_path: Path):
    """pytest loads a conftest.py for every test below it and the modules `pytest_plugins` names; importlib
    imports what its argument names, and a computed name could be any module: unknown means run."""
    base = {**_project(8),
            "tests/sub/conftest.py": ("import pytest\nfrom pkg.money import cents\n\n\n@pytest.fixture\n"
                                      "def price():\n    return cents(1)\n"),
            "tests/sub/test_fixture.py": "def test_price(price):\n    assert price == 100\n",
            "tests/sub/deeper/test_deeper.py": "def test_deeper(price):\n    assert price == 100\n",
            "tests/plugins/prices.py": ("import pytest\nfrom pkg import money\n\n\n@pytest.fixture\n"
                                        "def cost():\n    return money.cents(3)\n"),
            "tests/test_plugin_user.py": ('pytest_plugins = ["tests.plugins.prices"]\n\n\n'
                                          "def test_cost(cost):\n    assert cost == 300\n"),
            "tests/test_lazy.py": ('import importlib\n\n\ndef test_lazy():\n'
                                   '    assert importlib.import_module("pkg.money").cents(1) == 100\n'),
            "tests/test_computed.py": ('import importlib\n\nNAME = "pkg." + "money"\n\n\ndef test_computed():\n'
                                       "    assert importlib.import_module(NAME).cents(1) == 100\n")}
    head = {"src/pkg/money.py": "def cents(x: float) -> int:\n    return int(x * 100)\n"}
    with open_snapshot(case=make_case(tmp_path / "c", base, head)) as snap:
        tests, why = affected_tests(tool_context(snap))
    assert sorted(tests) == ["tests/sub/deeper/test_deeper.py", "tests/sub/test_fixture.py", "tests/test_computed.py",
                             "tests/test_direct.py", "tests/test_init.py", "tests/test_lazy.py",
                             "tests/test_plugin_user.py", "tests/test_via_package.py"]
    assert why == "8 of 16 test files import the changed code"


def test_a_test_that_starts_a_process_runs_whenever_code_changes(tmp_path: Path):
    """A test that runs the project in a child process reaches code no import shows (commander's
    executable-subcommand tests spawn a fixture program with no extension)."""
    base = {**_project(8), "bin/cents": "#!/usr/bin/env python3\nfrom pkg.money import cents\nprint(cents(1.5))\n",
            "tests/test_cli.py": ("import subprocess\nimport sys\n\n\ndef test_cli():\n"
                                  "    out = subprocess.run([sys.executable, 'bin/cents'], capture_output=True,\n"
                                  "                         text=True)\n"
                                  "    assert out.stdout == '150\\n'\n")}
    head = {"src/pkg/money.py": "def cents(x: float) -> int:\n    return int(x * 100)\n"}
    with open_snapshot(case=make_case(tmp_path / "c", base, head)) as snap:
        tests, why = affected_tests(tool_context(snap))
    assert tests == ["tests/test_cli.py", "tests/test_direct.py", "tests/test_init.py", "tests/test_via_package.py"]
    assert why == "3 of 12 test files import the changed code (and 1 that start processes)"


def test_small_projects_and_unknown_files_run_everything(tmp_path: Path):
    small = make_case(tmp_path / "s", _project(2), {"src/pkg/text.py": "def shout(s: str) -> str:\n    return s\n"})
    with open_snapshot(case=small) as snap:
        tests, why = affected_tests(tool_context(snap))
    assert len(tests) == 5 and why == "5 test files: all run"
    config = make_case(tmp_path / "k", {**_project(8), "settings.json": "{}\n"}, {"settings.json": '{"a": 1}\n'})
    with open_snapshot(case=config) as snap:
        tests, why = affected_tests(tool_context(snap))
    assert len(tests) == 11 and "outside the import graph" in why


def test_claims_name_each_retired_name_once(tmp_path: Path):
    base = {"src/a.py": "def alpha() -> int:\n    return 1\n\n\ndef beta() -> int:\n    return 2\n",
            "registry.json": '{"handlers": ["alpha", "beta"], "again": "alpha"}\n'}
    case = make_case(tmp_path / "r", base, {"src/a.py": "def gamma() -> int:\n    return 3\n"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    texts = sorted(c.claim.claim for c in result.claims)
    assert texts == ["`alpha` is retired by the change but still used at registry.json:1.",
                     "`beta` is retired by the change but still used at registry.json:1."]
    assert result.verdict == "MODIFY" and all(c.status == "validated" for c in result.claims)


def test_unchanged_migrations_are_history_not_dangling(tmp_path: Path):
    base = {"migrations/001_create.sql": "CREATE TABLE t (fullname TEXT);\n",
            "src/q.py": "SQL = 'SELECT fullname FROM t'\n"}
    done = make_case(tmp_path / "ok", base, {"migrations/002_rename.sql": "ALTER TABLE t RENAME fullname TO name;\n",
                                             "src/q.py": "SQL = 'SELECT name FROM t'\n"})
    with open_snapshot(case=done) as snap:
        assert run_review(tool_context(snap), "mechanical").verdict == "KEEP"
    left = make_case(tmp_path / "bad", {**base, "src/r.py": "R = 'SELECT fullname FROM t WHERE 1'\n"},
                     {"migrations/002_rename.sql": "ALTER TABLE t RENAME fullname TO name;\n",
                      "src/q.py": "SQL = 'SELECT name FROM t'\n"})
    with open_snapshot(case=left) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    assert [(a.file, a.line) for c in result.claims for a in c.artifacts] == [("src/r.py", 1)]


def test_callers_that_no_longer_fit_a_changed_signature_are_a_warning(tmp_path: Path):
    base = {"src/geo.js": "export function area(w, h) {\n  return w * h;\n}\n",
            "src/use.js": "import { area } from './geo.js';\n\nexport const A = area(2, 3);\n"}
    head = {"src/geo.js": "export function area(w, h, d) {\n  return w * h * d;\n}\n"}
    case = make_case(tmp_path / "a", base, head, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "WARNING"
    [claim] = result.claims
    lookup = next(c for c in result.tool_calls if c.tool == "find_symbol")
    assert lookup.args == {"name": "area", "kind": "reference"} and "src/use.js:3" in lookup.output
    assert claim.claim.claim.startswith("`area` now takes (w, h, d) (was (w, h)), but unchanged callers no longer "
                                        "fit: src/use.js:3 `area(2, 3)` ")
    assert claim.claim.evidence_refs == [lookup.id, "src/use.js:3"] and claim.verdict == "WARNING"
    # The same change with its caller updated is clean.
    fixed = make_case(tmp_path / "b", base, {**head, "src/use.js": "import { area } from './geo.js';\n\n"
                                                                    "export const A = area(2, 3, 1);\n"},
                      checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=fixed) as snap:
        assert run_review(tool_context(snap), "mechanical").verdict == "KEEP"


def test_more_affected_test_files_than_one_call_takes_all_run(tmp_path: Path):
    """run_test takes at most MAX_TARGETS files a call: the judge makes as many calls as it takes, and the one
    broken test in the last file still blocks (one refused call of 61 files once made this a WARNING)."""
    from showcause.tools.run_test import MAX_TARGETS

    base: dict[str, str | bytes] = {
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n', "src/pkg/__init__.py": "",
        "src/pkg/money.py": "def cents(x: float) -> int:\n    return round(x * 100)\n"}
    count = MAX_TARGETS + 11
    for i in range(count):
        x, cents = (1.5, 150) if i == count - 1 else (i, i * 100)   # only the last one sees the rounding
        base[f"tests/test_m{i:02d}.py"] = (f"from pkg.money import cents\n\n\ndef test_{i}():\n"
                                           f"    assert cents({x}) == {cents}\n")
    head = {"src/pkg/money.py": "def cents(x: float) -> int:\n    return int(x) * 100\n"}
    with open_snapshot(case=make_case(tmp_path / "c", base, head)) as snap:
        result = run_review(tool_context(snap), "mechanical")
    runs = [c for c in result.tool_calls if c.tool == "run_test"]
    assert [len(c.args["test"]) for c in runs] == [MAX_TARGETS, count - MAX_TARGETS]
    assert result.verdict == "MODIFY"
    assert [a.subject for c in result.claims for a in c.artifacts] == [f"tests/test_m{count - 1}.py::test_{count - 1}"]
