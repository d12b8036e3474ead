"""`run_probe` on real trees, through the ledger (real pytest in the sandbox): a probe written into copies of
base and head runs `[tests] probe_runs` times on each, reports every run's outcome per test, and leaves the
trees the other tools read as they were; bad arguments are refused as a failed call."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from builders import make_case
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context

CALC: dict[str, str | bytes] = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": '"""Arithmetic."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n',
    "tests/test_calc.py": "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
BROKEN_ADD: dict[str, str | bytes | None] = {
    "src/pkg/calc.py": '"""Arithmetic."""\n\n\ndef add(a: int, b: int) -> int:\n    return a - b\n'}

PROBE = ("from pkg.calc import add\n\n\ndef test_negative():\n    assert add(-2, 3) == 1\n\n\n"
         "def test_unsupported():\n    raise NotImplementedError('floats are not probed here')\n")
# Each parametrized test passes half of its runs at random: among twenty, some must differ between runs.
FLAKY = ("import random\n\nimport pytest\n\n\n@pytest.mark.parametrize('n', range(20))\n"
         "def test_coin(n):\n    assert random.SystemRandom().random() < 0.5\n")


def _case(tmp_path: Path, head: dict[str, str | bytes | None]) -> Path:
    return make_case(tmp_path / "probe", CALC, head, checks={"tests": [], "typecheck": "none"})


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.isolation
def test_a_probe_runs_on_both_trees_and_leaves_them_as_they_were(tmp_path: Path):
    case = _case(tmp_path, BROKEN_ADD)
    with open_snapshot(case=case) as snap:
        before = {side: _digest(snap.tree(side)) for side in ("base", "head")}
        call = Ledger(tool_context(snap)).call("run_probe", {"path": "tests/test_probe_add.py", "content": PROBE})
        after = {side: _digest(snap.tree(side)) for side in ("base", "head")}
        listed = Ledger(tool_context(snap)).call("list_files", {"path": "tests"})
    assert call.ok, call.output
    assert after == before and "tests/test_probe_add.py" not in before["head"]
    assert "test_probe_add" not in listed.output
    rows = {r["test"]: r for r in call.results or []}
    negative = rows["tests/test_probe_add.py::test_negative"]
    unsupported = rows["tests/test_probe_add.py::test_unsupported"]
    # Passes on base and fails on head, every run; fails on both, every run.
    assert (negative["base"], negative["head"]) == (["passed"] * 3, ["failed"] * 3)
    assert (unsupported["base"], unsupported["head"]) == (["failed"] * 3, ["failed"] * 3)
    assert all("assert -5 == 1" in m for m in negative["head_messages"]) and negative["base_messages"] == [""] * 3
    assert all("NotImplementedError: floats are not probed here" in m for m in unsupported["base_messages"])
    text = call.output
    assert "tests/test_probe_add.py::test_negative — base: passed, passed, passed; head: failed, failed, failed" in text
    assert "    head runs 1, 2, 3: assert -5 == 1" in text
    assert "    base runs 1, 2, 3: NotImplementedError: floats are not probed here" in text
    # The test whose outcome differs between the trees comes first.
    assert text.index("::test_negative") < text.index("::test_unsupported")


@pytest.mark.isolation
def test_a_probe_is_never_stored_in_the_base_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(cache))
    case = _case(tmp_path, BROKEN_ADD)
    with open_snapshot(case=case) as snap:
        ledger = Ledger(tool_context(snap))
        probed = ledger.call("run_probe", {"path": "tests/test_probe_add.py", "content": PROBE})
        stored = sorted(p for p in cache.rglob("*") if p.is_file())
        ran = ledger.call("run_test", {"test": "tests/test_calc.py"})
    assert probed.ok and ran.ok, (probed.output, ran.output)
    assert stored == []
    # The same review's run_test does store its base run there: the cache was in use.
    assert any(p.is_file() for p in (cache / "base").rglob("*"))


@pytest.mark.isolation
def test_a_flaky_probe_shows_differing_outcomes_across_runs(tmp_path: Path):
    case = _case(tmp_path, BROKEN_ADD)
    with open_snapshot(case=case) as snap:
        call = Ledger(tool_context(snap)).call("run_probe", {"path": "tests/probe_coin_test.py", "content": FLAKY})
    assert call.ok, call.output
    rows = call.results or []
    assert len(rows) == 20 and all(len(r["base"]) == len(r["head"]) == 3 for r in rows)
    assert any(len(set(r["base"])) > 1 or len(set(r["head"])) > 1 for r in rows)


@pytest.mark.isolation
def test_a_probe_that_fails_to_import_is_an_error_of_its_file_in_each_of_probe_runs(tmp_path: Path):
    case = _case(tmp_path, BROKEN_ADD)
    config = tmp_path / "probe.toml"
    config.write_text("[tests]\nprobe_runs = 2\n", encoding="utf-8")
    with open_snapshot(case=case) as snap:
        call = Ledger(tool_context(snap, config)).call("run_probe", {"path": "tests/test_probe_syntax.py",
                                                                     "content": "def test_x(:\n    pass\n"})
    assert call.ok, call.output
    [row] = call.results or []
    assert row["test"] == "tests/test_probe_syntax.py" and row["base"] == row["head"] == ["error"] * 2
    assert "2 run(s) on each tree" in call.output and "SyntaxError" in row["head_messages"][0]


@pytest.mark.parametrize(("path", "content", "said"), [
    ("tests/test_calc.py", PROBE, "exists on the base tree"),
    ("src/pkg/calc.py", PROBE, "not a test file pytest collects"),
    ("tests/probe.py", PROBE, "name the probe test_*.py or *_test.py"),
    ("tests/conftest.py", PROBE, "not a test file pytest collects"),
    ("tests/test_a.py::test_b.py", PROBE, "letters, digits, '_', '-', '.' and '/' only"),
    ("test/probe.test.js", "test('x', () => {});\n", "JavaScript and TypeScript probes are not supported yet"),
    ("../test_out.py", PROBE, "escapes the repository root"),
    ("/tmp/test_abs.py", PROBE, "absolute paths are not allowed"),
    ("tests/test_big.py", "x = 1\n" * 4000, "a probe may have at most 20000"),
    ("src/pkg/calc.py/test_x.py", PROBE, "is a file on the base tree"),
])
def test_bad_arguments_are_refused(tmp_path: Path, path: str, content: str, said: str):
    case = _case(tmp_path, BROKEN_ADD)
    with open_snapshot(case=case) as snap:
        call = Ledger(tool_context(snap)).call("run_probe", {"path": path, "content": content})
    assert not call.ok and "run_probe: refused:" in call.output and said in call.output, call.output


def test_a_path_new_on_head_is_refused(tmp_path: Path):
    case = _case(tmp_path, {"tests/test_more.py": "def test_more():\n    assert True\n"})
    with open_snapshot(case=case) as snap:
        call = Ledger(tool_context(snap)).call("run_probe", {"path": "tests/test_more.py", "content": PROBE})
    assert not call.ok and "tests/test_more.py exists on the head tree" in call.output, call.output
