"""The six tools on real projects: real ripgrep, pytest, node --test, pyright and tsc in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import make_case
from isolation import AUTO_LEVEL
from projects import JS_BASE, JS_HEAD, PY_BASE, PY_HEAD
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context
from showcause.snapshot import Snapshot

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


@pytest.fixture(scope="module")
def py_snap(tmp_path_factory: pytest.TempPathFactory):
    case = make_case(tmp_path_factory.mktemp("py") / "pycase", PY_BASE, PY_HEAD,
                     checks={"tests": ["tests/test_ops.py", "tests/test_red.py", "tests/test_new.py"],
                             "typecheck": "pyright"})
    with open_snapshot(case=case) as snap:
        yield snap


@pytest.fixture(scope="module")
def js_snap(tmp_path_factory: pytest.TempPathFactory):
    case = make_case(tmp_path_factory.mktemp("js") / "jscase", JS_BASE, JS_HEAD,
                     checks={"tests": [], "typecheck": "tsc"})
    with open_snapshot(case=case) as snap:
        yield snap


def ledger(snap: Snapshot) -> Ledger:
    return Ledger(tool_context(snap))


def test_run_test_marks_regressions_against_base(py_snap: Snapshot, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch):
    # A cache of its own: a base result another test left behind would add the fresh run a cached pass gets.
    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(tmp_path / "cache"))
    call = ledger(py_snap).call("run_test", {"test": "tests/test_ops.py"})
    assert call.ok and call.id == "T1" and call.output.startswith("T1 run_test tests/test_ops.py")
    # Failing on head and passing on base, it was re-run twice on each tree (`[tests] test_reruns`) before it
    # counted as broken by the change.
    assert call.results == [{"test": "tests/test_ops.py::test_add", "head": "failed", "base": "passed",
                             "runs": {"head": ["failed"] * 3, "base": ["passed"] * 3}},
                            {"test": "tests/test_ops.py::test_scale", "head": "passed", "base": None}]
    assert [(a.type, a.file, a.detail) for a in call.artifacts] == [
        ("test_regression", "tests/test_ops.py", "tests/test_ops.py::test_add: failed — assert -1 == 5")]
    assert call.artifacts[0].tool_call == "T1"
    assert call.isolation == AUTO_LEVEL


def test_run_test_red_on_base_is_not_a_regression(py_snap: Snapshot):
    call = ledger(py_snap).call("run_test", {"test": "tests/test_red.py"})
    assert call.results == [{"test": "tests/test_red.py::test_red_on_base", "head": "failed", "base": "failed"}]
    assert call.artifacts == []
    assert "already failing before this change" in call.output


def test_run_test_new_failing_test_is_an_artifact(py_snap: Snapshot):
    call = ledger(py_snap).call("run_test", {"test": "tests/test_new.py"})
    assert call.results == [{"test": "tests/test_new.py::test_new_and_red", "head": "failed", "base": None}]
    assert [a.type for a in call.artifacts] == ["test_regression"]
    assert "new in this change" in call.output


def test_run_test_single_id_and_allowlist(py_snap: Snapshot):
    lg = ledger(py_snap)
    one = lg.call("run_test", {"test": "tests/test_ops.py::test_scale"})
    assert one.results == [{"test": "tests/test_ops.py::test_scale", "head": "passed", "base": None}]
    refused = lg.call("run_test", {"test": "src/calc/ops.py"})
    assert not refused.ok and "not an allowlisted test file" in refused.output and refused.id == "T2"
    flag = lg.call("run_test", {"test": "--co"})
    assert not flag.ok and "not an option" in flag.output


def test_typecheck_pyright_marks_new_errors_across_line_shifts(py_snap: Snapshot):
    call = ledger(py_snap).call("typecheck", {})
    assert call.ok
    assert [(a.type, a.file, a.line) for a in call.artifacts] == [("new_type_error", "src/calc/ops.py", 7)]
    # The pre-existing error moved from line 9 to 10 and is still recognised as pre-existing.
    assert "PRE-EXISTING src/calc/ops.py:10:" in call.output
    assert "1 new, 1 pre-existing" in call.output


def test_typecheck_lazy_base_checks_only_the_files_with_head_errors(tmp_path):
    base = {"src/m/__init__.py": "",
            "src/m/ops.py": "def half(x: int) -> str:\n    return str(x // 2)\n\n\nBAD: int = 'pre'\n",
            "src/m/use.py": "from m.ops import half\n\nN: int = half(4)\n"}
    # The change fixes use.py's error and adds one in ops.py: only ops.py has errors on head.
    head = {"src/m/ops.py": "def half(x: int) -> int:\n    return x // 2\n\n\nBAD: int = 'pre'\nNEW: int = ''\n"}
    case = make_case(tmp_path / "c", base, head, checks={"tests": [], "typecheck": "pyright"})
    outputs = {}
    with open_snapshot(case=case) as snap:
        for eager in (True, False):
            ctx = tool_context(snap)
            ctx.eager_base = eager
            call = Ledger(ctx).call("typecheck", {})
            assert [(a.type, a.file, a.line) for a in call.artifacts] == [("new_type_error", "src/m/ops.py", 6)]
            outputs[eager] = call.output
    assert "1 new, 1 pre-existing); 2 on base;" in outputs[True]       # base checked as widely as head
    assert "1 new, 1 pre-existing); 1 on base in those files;" in outputs[False]   # only ops.py on base


def test_run_test_node(js_snap: Snapshot):
    call = ledger(js_snap).call("run_test", {"test": "test/math.test.js"})
    runs = {"head": ["failed"] * 3, "base": ["passed"] * 3}
    assert call.results == [
        {"test": "test/math.test.js::mul by zero", "head": "failed", "base": "passed", "runs": runs},
        {"test": "test/math.test.js::mul multiplies", "head": "failed", "base": "passed", "runs": runs}]
    assert len(call.artifacts) == 2


def test_typecheck_tsc(js_snap: Snapshot):
    call = ledger(js_snap).call("typecheck", {})
    assert call.ok, call.output
    assert [(a.type, a.file, a.line, a.detail.split(":")[0]) for a in call.artifacts] == [
        ("new_type_error", "src/math.js", 8, "TS2322")]


def test_search_hits_counts_and_caps(py_snap: Snapshot):
    lg = ledger(py_snap)
    call = lg.call("search", {"pattern": r"def \w+", "glob": "*.py"})
    assert call.output.splitlines()[1:] == [
        "src/calc/ops.py:2: def add(a: int, b: int) -> int:",
        "src/calc/ops.py:6: def scale(items: list[int], k: int) -> str:",
        "tests/test_new.py:1: def test_new_and_red():",
        "tests/test_ops.py:4: def test_add():",
        "tests/test_ops.py:8: def test_scale():",
        "tests/test_red.py:1: def test_red_on_base():",
    ]
    assert [(s.file, s.line) for s in call.shown][:2] == [("src/calc/ops.py", 2), ("src/calc/ops.py", 6)]
    ctx = tool_context(py_snap)
    ctx.policy = ctx.policy.merged({"output": {"max_search_hits": 2}}, "test")
    capped = Ledger(ctx).call("search", {"pattern": "def", "case_sensitive": False})
    assert "[showing the first 2 of 6;" in capped.output
    fixed = lg.call("search", {"pattern": "a - b", "fixed": True, "path": "src"})
    assert fixed.output.splitlines()[1:] == ["src/calc/ops.py:3: return a - b"]


def test_read_file_numbers_lines_and_says_how_to_read_on(py_snap: Snapshot):
    ctx = tool_context(py_snap)
    ctx.policy = ctx.policy.merged({"paths": {"max_read_lines": 3}}, "test")
    call = Ledger(ctx).call("read_file", {"path": "src/calc/ops.py", "start_line": 2})
    assert call.output.splitlines() == [
        "T1 read_file src/calc/ops.py (lines 2-4 of 10)",
        "2| def add(a: int, b: int) -> int:",
        "3|     return a - b",
        "4| ",
        "[6 more lines; call again with start_line=5]",
    ]
    assert [(s.file, s.line) for s in call.shown] == [("src/calc/ops.py", n) for n in (2, 3, 4)]


def test_list_files(py_snap: Snapshot):
    call = ledger(py_snap).call("list_files", {"path": "tests"})
    assert call.output.splitlines() == ["T1 list_files tests: 3 files", "tests/test_new.py", "tests/test_ops.py",
                                        "tests/test_red.py"]
    md = ledger(py_snap).call("list_files", {"glob": "*.md"})
    assert md.output.splitlines()[1:] == ["docs/notes.md"]


def test_output_cap_drops_artifacts_that_were_cut(py_snap: Snapshot):
    ctx = tool_context(py_snap)
    ctx.policy = ctx.policy.merged({"output": {"max_chars": 120}}, "test")
    call = Ledger(ctx).call("typecheck", {})
    assert "[output cut:" in call.output
    # The NEW line did not fit, so no artifact survives.
    assert call.artifacts == []


def test_tool_records_are_json_serialisable(py_snap: Snapshot):
    call = ledger(py_snap).call("search", {"pattern": "add"})
    record = json.loads(json.dumps(call.to_json()))
    assert set(record) == {"id", "tool", "args", "ok", "output", "artifacts", "ms", "isolation"}


def test_tools_never_see_ground_truth(py_snap: Snapshot):
    lg = ledger(py_snap)
    assert lg.call("search", {"pattern": "TRUTH-SENTINEL"}).output.endswith(": 0 matching lines")
    assert "case.json" not in lg.call("list_files", {}).output
    assert "case.json" not in lg.call("search", {"pattern": "case", "fixed": True}).output.split("\n", 1)[-1]
    for args in ({"path": "../case.json"}, {"path": "../../pycase/case.json"}):
        call = lg.call("read_file", args)
        assert not call.ok and "escapes the repository root" in call.output
    assert not lg.call("search", {"pattern": "x", "path": ".."}).ok


def test_a_bounded_ledger_shares_the_record_and_leaves_the_policy_alone(py_snap: Snapshot):
    ctx = tool_context(py_snap)
    policy = ctx.policy
    whole = Ledger(ctx, ["list_files", "read_file"])
    bounded = whole.within(2.5)
    assert bounded.ctx.policy.process.timeout_s == 2.5 and bounded.tools == whole.tools
    assert ctx.policy is policy and whole.ctx is ctx and policy.process.timeout_s != 2.5
    first = bounded.call("list_files", {})
    second = whole.call("read_file", {"path": "src/calc/ops.py"})
    assert (first.id, second.id) == ("T1", "T2") and whole.calls == bounded.calls == [first, second]
    assert bounded.ctx.cache is ctx.cache   # one review: one cache, one analysis budget
