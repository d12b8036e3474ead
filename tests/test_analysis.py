"""Host-side analysis of untrusted trees: linear in the input, bounded per review, never silent when cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from tree_sitter import Query

from builders import make_case, write_tree
from showcause.analysis.scope import local_lines, parse_for_scope
from showcause.core.analysis_budget import PARSE_GAVE_UP, AnalysisBudget
from showcause.core.errors import InputError
from showcause.core.result import ReviewResult
from showcause.policy import load_policy, tighter_only
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review
from showcause.symbols import SymbolIndex, languages
from showcause.symbols.languages import MAX_QUERY_DEPTH, ParseTimeout, captures, get_language, get_parser, parse_within

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


def test_local_lines_answers_every_line_in_one_walk() -> None:
    source = b"x = 1\ndef f(x):\n    x = 2\n    return x\nclass C:\n    x = 3\ng = lambda x: x\ndef x():\n    pass\n"
    tree = parse_for_scope("m.py", source)
    assert tree is not None
    # 8: a function's own name belongs to the enclosing scope; 10: no occurrence is no local definition.
    assert local_lines(tree, "x", [1, 2, 3, 4, 6, 7, 8, 10]) == {2, 3, 4, 7}


def test_local_lines_on_deeply_nested_code() -> None:
    # Walking up from the name cost depth² here (minutes at this depth); one walk down costs the tree.
    depth = 50_000
    module = parse_for_scope("m.py", b"x = " + b"[" * depth + b"(yy := 1)" + b"]" * depth + b"\n")
    inner = parse_for_scope("m.py", b"f = lambda: " + b"[" * depth + b"(yy := 1)" + b"]" * depth + b"\n")
    assert module is not None and inner is not None
    assert local_lines(module, "yy", [1]) == set() and local_lines(inner, "yy", [1]) == {1}


# ---------------------------------------------------------------------------------------------------------------
# The budget itself
# ---------------------------------------------------------------------------------------------------------------

def test_budget_counts_a_thread_s_nested_sections_once_and_groups_what_it_left_out() -> None:
    budget = AnalysisBudget(seconds=3600.0, max_bytes=10)
    with budget.measure(), budget.measure():
        inside = budget.used()
    assert 0 < inside <= budget.used() < 1.0 and not budget.expired()
    assert not budget.too_big("small.sql", 10) and budget.too_big("a.sql", 11) and budget.too_big("b.sql", 99)
    budget.gave_up("lib.js")
    budget.skip("a.sql", "another reason")           # the first reason a file was left out stays
    assert budget.summary() == ("a.sql, b.sql (larger than max_analysis_bytes (10 bytes)); "
                                f"lib.js ({PARSE_GAVE_UP})")
    spent = AnalysisBudget(seconds=0.0)
    assert spent.expired() and spent.out_of_time("x.py") and spent.gave_up("y.js") == spent.budget_reason
    assert spent.summary() == "x.py, y.js (the review's analysis_budget_s (0 s) ran out)"
    assert AnalysisBudget().summary() is None


def test_policy_has_the_analysis_keys_and_a_repository_may_only_tighten_them() -> None:
    policy = load_policy()
    assert (policy.analysis.max_analysis_bytes, policy.analysis.analysis_budget_s) == (4_000_000, 30.0)
    tighter = load_policy({"analysis": {"max_analysis_bytes": 1000, "analysis_budget_s": 5}})
    assert (tighter.analysis.max_analysis_bytes, tighter.analysis.analysis_budget_s) == (1000, 5.0)
    tighter_only(policy, tighter, "repo")
    with pytest.raises(InputError, match="analysis_budget_s may only be tightened"):
        tighter_only(policy, load_policy({"analysis": {"analysis_budget_s": 60.0}}), "repo")


# ---------------------------------------------------------------------------------------------------------------
# tree-sitter with a time limit
# ---------------------------------------------------------------------------------------------------------------

_SOURCE = b"".join(b"def f%d(a, b):\n    return a + b\n" % i for i in range(2000))


def test_a_parse_out_of_time_gives_up_and_leaves_the_parser_usable() -> None:
    with pytest.raises(ParseTimeout):
        parse_within("python", _SOURCE, 0.0)
    tree = parse_within("python", b"x = 1\n")
    assert str(tree.root_node) == str(get_parser("python").parse(b"x = 1\n").root_node)
    assert tree.root_node.children[0].text == b"x = 1"    # the tree holds its source


def test_a_source_that_ran_out_of_its_whole_limit_gives_up_at_once_next_time(monkeypatch: pytest.MonkeyPatch) -> None:
    source = _SOURCE + b"# once\n"
    monkeypatch.setattr(languages, "parse_seconds", lambda size: 0.0)
    with pytest.raises(ParseTimeout):
        parse_within("python", source)
    monkeypatch.undo()
    with pytest.raises(ParseTimeout):                 # no time limit was hit: it was remembered
        parse_within("python", source, 3600.0)
    assert parse_within("python", _SOURCE + b"# twice\n").root_node.child_count == 2001


def test_queries_start_no_deeper_than_the_cap() -> None:
    # Template literals tagging each other nest one level per backtick pair: 70 000 levels made a query
    # quadratic (16-bit depths in tree-sitter's query states). The strings below the cap are found.
    source = b"x;\n" + b"`" * 200_000
    query = Query(get_language("javascript"), "(template_string) @s")
    caps = captures(query, parse_within("javascript", source).root_node)
    assert 0 < len(caps["s"]) < MAX_QUERY_DEPTH


# ---------------------------------------------------------------------------------------------------------------
# A review whose analysis was cut says so, and never blocks on what it could not see
# ---------------------------------------------------------------------------------------------------------------

_BASE: dict[str, str | bytes] = {
    "src/a.py": "def alpha() -> int:\n    return 1\n",
    "registry.json": '{"handlers": ["alpha"]}\n',
    "data/big.json": '{"rows": [' + ", ".join('"alpha"' for _ in range(300)) + "]}\n",
}
_HEAD: dict[str, str | bytes | None] = {"src/a.py": "def gamma() -> int:\n    return 1\n"}


def _review(tmp_path: Path, policy: str | None) -> ReviewResult:
    case = make_case(tmp_path / "case", _BASE, _HEAD, checks={"tests": [], "typecheck": "none"})
    config = None
    if policy is not None:
        config = tmp_path / "policy.toml"
        config.write_text(policy, encoding="utf-8")
    with open_snapshot(case=case) as snap:
        return run_review(tool_context(snap, config), "mechanical")


def test_without_caps_both_files_still_using_the_name_block(tmp_path: Path) -> None:
    result = _review(tmp_path, None)
    assert result.verdict == "MODIFY"
    assert sorted(a.file for c in result.claims for a in c.artifacts) == ["data/big.json", "registry.json"]


def test_a_file_over_the_size_cap_is_named_in_a_warning_and_keeps_the_name_from_retiring(tmp_path: Path) -> None:
    # data/big.json may hold uses of `alpha` nobody looked at: `alpha` is not retired on what was seen.
    result = _review(tmp_path, "[analysis]\nmax_analysis_bytes = 1000\n")
    assert (result.verdict, result.model_verdict) == ("WARNING", "KEEP")
    [claim] = result.claims
    assert claim.verdict == "WARNING" and claim.status == "unconfirmed"
    assert "data/big.json (larger than max_analysis_bytes (1000 bytes))" in claim.claim.claim


def test_a_spent_budget_stops_the_analysis_and_says_so(tmp_path: Path) -> None:
    result = _review(tmp_path, "[analysis]\nanalysis_budget_s = 0.000001\n")
    assert (result.verdict, result.model_verdict) == ("WARNING", "KEEP")
    [claim] = result.claims
    assert "the review's analysis_budget_s (1e-06 s) ran out" in claim.claim.claim
    assert "0 retired name(s) searched" in result.summary


def test_an_index_left_incomplete_runs_every_test_and_is_retried_under_a_new_budget(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"a.py": "def f():\n    pass\n", "b.py": "import a\n"})
    index = SymbolIndex.for_tree(root, changed=[], budget=AnalysisBudget(seconds=0.0))
    assert index.files == [] and set(index.unindexed) == {"a.py", "b.py"}
    again = SymbolIndex.for_tree(root, changed=[], budget=AnalysisBudget())
    assert again is index and index.files == ["a.py", "b.py"] and index.unindexed == {}


def test_a_reference_lookup_names_the_files_a_load_left_out_that_hold_the_name(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"a.py": "def f():\n    pass\n", "b.py": "import a\n\na.f()\n" + "#" * 50})
    budget = AnalysisBudget(max_bytes=30)
    index = SymbolIndex(root, budget=budget)
    assert index.files == ["a.py"] and index.unindexed == {"b.py": budget.size_reason}
    assert [h.file for h in index.lookup("f", "any", budget)] == ["a.py"]
    assert budget.skipped == [("b.py", budget.size_reason)]


def test_a_cancelled_or_signalled_review_stops_its_host_analysis_at_the_next_file(tmp_path: Path) -> None:
    """The analysis budget of a review checks the sandbox's lifecycle before each file: a client's cancel (or
    a signal) ends host-side analysis between two files, not when its time budget runs out."""
    from builders import make_case
    from showcause.core.errors import Cancelled
    from showcause.sandbox.lifecycle import Scope
    from showcause.service.inputs import open_snapshot, tool_context
    from showcause.symbols import SymbolIndex

    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(12)}
    case = make_case(tmp_path / "c", files, {"pkg/m0.py": "def f0(x):\n    return x\n"})
    with open_snapshot(case=case) as snap:
        ctx = tool_context(snap)
        scope = Scope()
        scope.cancel()
        with scope.active(), pytest.raises(Cancelled):
            SymbolIndex.for_tree(snap.head, budget=ctx.analysis, worker_min_files=10_000)
        # Not cancelled, the same analysis runs to the end.
        index = SymbolIndex.for_tree(snap.head, budget=tool_context(snap).analysis, worker_min_files=10_000)
        assert len(index.files) == 12 and not index.unindexed


# About 2 s of tree-sitter per MB: error recovery on an unclosed comment repeated, in Python's grammar.
_SLOW_SOURCE = b"/*" * 1_000_000


def test_a_cancelled_review_stops_a_slow_parse_at_once() -> None:
    import threading
    import time

    from showcause.core.errors import Cancelled
    from showcause.sandbox.lifecycle import Scope

    scope = Scope()
    timer = threading.Timer(0.3, scope.cancel)
    gave_up = list(languages._gave_up)
    started = time.monotonic()
    timer.start()
    with scope.active(), pytest.raises(Cancelled):
        parse_within("python", _SLOW_SOURCE, 60.0)
    assert time.monotonic() - started < 1.0
    assert list(languages._gave_up) == gave_up   # a cancelled parse is not remembered as one that gave up
    assert parse_within("python", b"x = 1\n").root_node.child_count == 1   # the parser was reset


def test_a_first_pass_that_recovered_from_errors_for_long_gives_up_rather_than_parse_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second pass (the tree that holds its text) cannot be stopped and takes as long as the first
    where error recovery ran: a tree with errors whose first pass took longer than REPARSE_AFTER_ERRORS
    gives up instead, and is remembered."""
    import time

    source = _SLOW_SOURCE[: len(_SLOW_SOURCE) // 5] + b"# slow\n"   # 0.8 s a pass here
    started = time.monotonic()
    get_parser("python").parse(lambda offset, _point: source[offset : offset + 65536])
    one_pass = time.monotonic() - started
    monkeypatch.setattr(languages, "REPARSE_AFTER_ERRORS", one_pass / 4)
    started = time.monotonic()
    with pytest.raises(ParseTimeout):
        parse_within("python", source, 60.0)
    assert time.monotonic() - started < one_pass * 1.5   # one pass, not two
    started = time.monotonic()
    with pytest.raises(ParseTimeout):
        parse_within("python", source, 60.0)   # remembered
    assert time.monotonic() - started < 0.1
    monkeypatch.undo()
    assert parse_within("python", b"def f(:\n    pass\n" * 2000).root_node.has_error   # quick: parsed as before


def test_a_signal_ends_a_slow_parse_within_two_seconds(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parse.py"
    script.write_text(
        "import os, sys\n"
        "from showcause.core.errors import Interrupted\n"
        "from showcause.sandbox.lifecycle import install_handlers\n"
        "from showcause.symbols import languages\n"
        "install_handlers()\n"
        "print('ready', flush=True)\n"
        "try:\n"
        f"    languages.parse_within('python', b'/*' * {len(_SLOW_SOURCE) // 2}, 60.0)\n"
        "    print('parsed', flush=True)\n"
        "except Interrupted as exc:\n"
        "    print('interrupted', exc.signum, flush=True)\n"
        "    os._exit(128 + exc.signum)\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate()
    assert (rc, out, err) == (128 + signal.SIGTERM, f"interrupted {int(signal.SIGTERM)}\n", "")
    assert took < 2.0, took


def _children() -> set[int]:
    import os

    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


def test_a_cancellation_kills_the_symbol_workers_without_waiting_for_their_parse(tmp_path: Path) -> None:
    import threading
    import time

    from showcause.core.errors import Cancelled
    from showcause.sandbox.lifecycle import Scope

    # 1 MB in one file of the index, which a worker parses for about 2 s (its whole time limit).
    root = write_tree(tmp_path / "t", {"slow.py": (_SLOW_SOURCE[: 1_000_000]).decode(), "a.py": "def f():\n    pass\n"})
    before = _children()
    scope = Scope()
    timer = threading.Timer(0.5, scope.cancel)
    started = time.monotonic()
    timer.start()
    with scope.active(), pytest.raises(Cancelled):
        SymbolIndex(root, worker_min_files=0, budget=AnalysisBudget())
    assert time.monotonic() - started < 1.5
    assert _children() - before == set()   # the worker was killed and reaped
