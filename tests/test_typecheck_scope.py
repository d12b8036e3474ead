"""The typecheck scope follows the project's own pyright include/exclude, read on base (real pyright)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from builders import make_case, write_tree
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context
from showcause.tools.pyright_config import configured_files

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
# The tests run too (pytest finds `m` under src/): tests that cannot import the project are no evidence.
CONFIG = ('[project]\nname = "m"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n\n'
          '[tool.pyright]\ninclude = ["src"]\nexclude = ["src/m/vendored"]\n')
BASE = {
    "pyproject.toml": CONFIG,
    "src/m/__init__.py": "",
    "src/m/ops.py": "def half(x: int) -> int:\n    return x // 2\n",
    "src/m/vendored/__init__.py": "",
    "src/m/vendored/old.py": "from m.ops import half\n\nV: int = half(2)\n",
    "tests/test_ops.py": "from m.ops import half\n\n\ndef test_half() -> None:\n    assert half(4) == 2\n",
}


def typecheck(tmp_path: Path, head: dict[str, str | bytes | None]) -> tuple[str, list[tuple[str, str, int]]]:
    case = make_case(tmp_path / "c", BASE, head, checks={"tests": [], "typecheck": "pyright"})
    with open_snapshot(case=case) as snap:
        call = Ledger(tool_context(snap)).call("typecheck", {})
    return call.output, [(a.type, a.file, a.line) for a in call.artifacts]


def test_files_outside_the_configured_include_are_not_checked(tmp_path: Path):
    # half() now returns str: its callers in tests/ and in the excluded vendored/ break too, but the project
    # type-checks neither; the new error inside src/ is the one reported.
    output, artifacts = typecheck(tmp_path, {
        "src/m/ops.py": "def half(x: int) -> str:\n    return str(x // 2)\n\n\nN: int = half(1)\n",
        "tests/test_ops.py": "from m.ops import half\n\n\ndef test_half() -> None:\n    n: int = half(4)\n",
    })
    assert output.splitlines()[0] == ("T1 typecheck: pyright checked the 1 Python files the change can affect (the "
                                      "changed files and everything that imports them) under the include/exclude "
                                      "of pyproject.toml [tool.pyright] on base")
    assert artifacts == [("new_type_error", "src/m/ops.py", 5)]


def test_a_change_outside_the_configured_files_runs_no_pyright(tmp_path: Path):
    output, artifacts = typecheck(tmp_path, {
        "tests/test_ops.py": "from m.ops import half\n\n\ndef test_half() -> None:\n    n: str = half(4)\n"})
    assert output.splitlines() == ["T1 typecheck: pyright not run: the change reaches no Python file the project "
                                   "type-checks under the include/exclude of pyproject.toml [tool.pyright] on base"]
    assert artifacts == []


def test_a_change_that_edits_pyright_settings_gets_a_warning(tmp_path: Path):
    # The change excludes the file it breaks in its own pyproject.toml. pyright applies head's exclude even to
    # files named on its command line, so the error goes unseen; the edit itself is reported and warned about.
    head = {"pyproject.toml": CONFIG.replace('exclude = ["src/m/vendored"]', 'exclude = ["src/m/ops.py"]'),
            "src/m/ops.py": "def half(x: int) -> int:\n    return x // 2\n\n\nN: int = 'half'\n"}
    output, artifacts = typecheck(tmp_path, head)
    assert artifacts == []
    assert output.splitlines()[0] == ("T1 typecheck: the change edits pyright's settings (pyproject.toml "
                                      "[tool.pyright]); head is checked under the edited settings, and files they "
                                      "exclude are not checked")
    case = tmp_path / "c"
    proc = subprocess.run([SHOWCAUSE, "review", "--case", str(case), "--format", "json"], capture_output=True,
                          text=True, timeout=300)
    result = json.loads(proc.stdout)
    assert proc.returncode == 0 and result["verdict"] == "WARNING", proc.stderr
    warned = [c for c in result["claims"] if "edits pyright's settings" in c["claim"]]
    assert len(warned) == 1 and warned[0]["location"] == "pyproject.toml" and warned[0]["verdict"] == "WARNING"
    same = typecheck(tmp_path / "same", {"src/m/ops.py": "def half(x: int) -> int:\n    return x // 3\n"})
    assert "edits pyright's settings" not in same[0]


def test_no_settings_warning_when_pyright_is_not_the_checker(tmp_path: Path):
    base = {**BASE, "tsconfig.json": '{"compilerOptions": {"checkJs": true, "noEmit": true}, "include": ["web"]}\n',
            "web/a.js": "export const a = 1;\n"}
    head = {"pyproject.toml": CONFIG.replace('exclude = ["src/m/vendored"]', 'exclude = ["src"]')}
    case = make_case(tmp_path / "c", base, head, checks={"tests": [], "typecheck": "tsc"})
    proc = subprocess.run([SHOWCAUSE, "review", "--case", str(case), "--format", "json"], capture_output=True,
                          text=True, timeout=300)
    result = json.loads(proc.stdout)
    assert proc.returncode == 0 and result["verdict"] == "KEEP" and result["claims"] == [], proc.stderr
    [typecheck] = [c for c in result["tool_calls"] if c["tool"] == "typecheck"]
    assert typecheck["output"].startswith("T") and "tsc" in typecheck["output"] and "pyright" not in typecheck["output"]


@pytest.mark.parametrize(("files", "covered", "outside"), [
    ({"pyproject.toml": '[tool.pyright]\ninclude = ["src/pkg", "tools/*.py"]\n'},
     ["src/pkg/a.py", "src/pkg/sub/b.py", "tools/run.py"], ["src/pkgx/a.py", "tests/t.py", "tools/deep/x.py"]),
    ({"pyproject.toml": '[tool.pyright]\nexclude = ["**/generated", "legacy?.py"]\n'},
     ["a.py", "src/gen.py", "legacy10.py"], ["generated/a.py", "src/generated/b/c.py", "legacy1.py"]),
    ({"pyrightconfig.json": '{"include": ["lib"]}', "pyproject.toml": '[tool.pyright]\ninclude = ["src"]\n'},
     ["lib/a.py"], ["src/a.py"]),                                      # pyrightconfig.json wins, as in pyright
    ({"pyproject.toml": '[tool.pyright]\ninclude = ["./src/", "src/**/*.pyi"]\n'}, ["src/a.py", "src/b/c.pyi"],
     ["a.py"]),
    ({"pyproject.toml": '[tool.pyright]\ninclude = []\nexclude = ["build"]\n'}, ["a.py", "src/b.py"],
     ["build/a.py"]),                                                   # empty include: the whole root
    ({"pyproject.toml": '[tool.pyright]\ninclude = ["/etc", "../sibling"]\n'}, [], ["a.py", "etc/x.py"]),
])
def test_include_and_exclude_patterns(tmp_path: Path, files: dict[str, str], covered: list[str],
                                      outside: list[str]):
    write_tree(tmp_path, files)
    found = configured_files(tmp_path)
    assert found is not None
    assert [f for f in covered + outside if found.covers(f)] == covered


@pytest.mark.parametrize("files", [
    {},
    {"pyproject.toml": '[project]\nname = "x"\n'},                       # no [tool.pyright]
    {"pyproject.toml": '[tool.pyright]\ntypeCheckingMode = "strict"\n'},  # nothing about files
    {"pyproject.toml": '[tool.pyright]\ninclude = "src"\n'},             # not a list: pyright would refuse it
    {"pyproject.toml": "[tool.pyright\n"},                                 # malformed
    {"pyrightconfig.json": '{"include": ["src"], // comment\n}'},         # comments: not read, no filter
])
def test_no_filter_when_there_is_nothing_usable(tmp_path: Path, files: dict[str, str]):
    write_tree(tmp_path, files)
    assert configured_files(tmp_path) is None
