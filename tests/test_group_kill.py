"""A pytest process that runs several files and is killed (past its wall limit) proves nothing about the
files it had not finished: each file runs again alone and only those runs count (real pytest in the sandbox).

Found by the oracle on a loaded machine: pyparsing's seven test files share one pytest process; under load
it ran past the 60 s wall limit, and every test it had not reached was charged a timeout on head — a whole
suite of suspects from a machine's load, not from the change."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.policy import load_policy
from showcause.service.inputs import open_snapshot, tool_context
from showcause.tools import testexec

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

# test_c hangs only when test_a ran in the same process: together the files pass the scaled wall limit,
# each alone is quick.
FILES = {
    "tests/test_a.py": "def test_a():\n    assert True\n",
    "tests/test_b.py": "def test_b():\n    assert 1 + 1 == 2\n",
    "tests/test_c.py": "import sys\nimport time\n\n\ndef test_c():\n"
                       "    if 'tests.test_a' in sys.modules or 'test_a' in sys.modules:\n        time.sleep(600)\n"
                       "    assert True\n",
    "tests/test_d.py": "import time\n\n\ndef test_d():\n    time.sleep(600)\n",
}


def _run(tmp_path: Path, files: list[str], timeout_s: float) -> tuple[dict[str, str], testexec.TestRun]:
    case = make_case(tmp_path / "c", FILES, {"README.md": "x\n"}, checks={"tests": [], "typecheck": "none"})
    policy = load_policy().merged({"process": {"timeout_s": timeout_s}}, "test")
    with open_snapshot(case=case) as snap:
        run = testexec.run_tests(snap.head, files, policy, env=tool_context(snap).env)
    return {o.test: o.outcome for o in run.outcomes}, run


def test_a_killed_group_of_files_runs_each_file_alone(tmp_path: Path, started: list[tuple[str, ...]]):
    rows, run = _run(tmp_path, ["tests/test_a.py", "tests/test_b.py", "tests/test_c.py"], 3.0)
    assert rows == {"tests/test_a.py::test_a": "passed", "tests/test_b.py::test_b": "passed",
                    "tests/test_c.py::test_c": "passed"}
    assert run.problem == ""
    # One process for the three files, killed; then one per file.
    assert [sum(arg.endswith(f"/tests/test_{x}.py") for arg in argv for x in "abc") for argv in started] == [3, 1, 1, 1]


def test_a_file_killed_alone_is_charged_its_timeout(tmp_path: Path, started: list[tuple[str, ...]]):
    """Alone, a file past its limit is what it always was: its unfinished test times out."""
    rows, run = _run(tmp_path, ["tests/test_a.py", "tests/test_d.py"], 3.0)
    assert rows == {"tests/test_a.py::test_a": "passed", "tests/test_d.py": "timeout"}
    assert "wall timeout" in run.problem
    assert len(started) == 3
