"""The gate, rule by rule, over real tool calls; each closed hole of the predecessor has a test."""

from __future__ import annotations

import random

import pytest

from builders import make_case
from projects import PY_BASE, PY_HEAD
from showcause.core.claims import Claim, most_severe
from showcause.evidence.gate import apply_gate
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

REF_BASE = {
    "src/app/__init__.py": "",
    "src/app/totals.py": ("def legacy_total(xs: list[int]) -> int:\n    return sum(xs)\n\n\n"
                          "def grand_total(xs: list[int]) -> int:\n    return sum(xs)\n"),
    "src/app/report.py": ("# legacy_total used to live here\n"
                          "def render(xs: list[int]) -> str:\n"
                          "    \"\"\"Formerly called legacy_total.\"\"\"\n"
                          "    from app.totals import grand_total\n"
                          "    return str(grand_total(xs))\n"),
    "settings.json": '{"aggregator": "legacy_total", "other": "grand_total"}\n',
    "CHANGELOG.md": "- legacy_total is deprecated\n",
}
REF_HEAD: dict[str, str | bytes | None] = {
    "src/app/totals.py": ("def grand_total(xs: list[int]) -> int:\n    return sum(xs)\n\n\n"
                          "AGGREGATORS = {'legacy_total_v2': grand_total}\n"),
}


@pytest.fixture(scope="module")
def py(tmp_path_factory: pytest.TempPathFactory):
    case = make_case(tmp_path_factory.mktemp("gate") / "g", PY_BASE, PY_HEAD,
                     checks={"tests": ["tests/test_ops.py", "tests/test_red.py", "tests/test_new.py"],
                             "typecheck": "pyright"})
    with open_snapshot(case=case) as snap:
        ledger = Ledger(tool_context(snap))
        ledger.call("run_test", {"test": "tests/test_ops.py"})     # T1: test_add regressed
        ledger.call("run_test", {"test": "tests/test_red.py"})     # T2: red on base too
        ledger.call("typecheck", {})                               # T3: ops.py:7 new, ops.py:10 pre-existing
        ledger.call("search", {"pattern": "import"})               # T4: unchanged lines, nothing retired
        ledger.call("read_file", {"path": "src/calc/ops.py"})      # T5: shows every line of ops.py
        yield ledger


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory):
    case = make_case(tmp_path_factory.mktemp("gate") / "r", REF_BASE, REF_HEAD)
    with open_snapshot(case=case) as snap:
        ledger = Ledger(tool_context(snap))
        ledger.call("search", {"pattern": "legacy_total"})         # T1
        yield ledger


def gate_one(ledger: Ledger, **kw) -> tuple[str, str, list[str]]:
    fields = {"claim": "x", "result": "confirmed", "verdict": "MODIFY", **kw}
    g = apply_gate([Claim(**fields)], ledger.calls)[0]
    return g.verdict, g.status, g.reasons


REGRESSION = "test_add in tests/test_ops.py fails after the change"


def test_validated_test_regression(py: Ledger):
    assert gate_one(py, claim=REGRESSION, evidence_refs=["T1", "tests/test_ops.py::test_add"])[:2] == \
        ("MODIFY", "validated")
    assert gate_one(py, claim=REGRESSION, evidence_refs=["T1"])[:2] == ("MODIFY", "validated")
    assert gate_one(py, claim=REGRESSION, evidence_refs=["tests/test_ops.py::test_add"])[:2] == \
        ("MODIFY", "validated")


def test_red_on_base_never_validates(py: Ledger):
    v = gate_one(py, claim="test_red_on_base in tests/test_red.py fails", evidence_refs=[
        "T2", "tests/test_red.py::test_red_on_base"])
    assert v[:2] == ("WARNING", "downgraded")
    assert "holds no artifact introduced by the change" in " ".join(v[2])


def test_new_type_error_validates_and_pre_existing_does_not(py: Ledger):
    assert gate_one(py, claim="scale in src/calc/ops.py returns the wrong type",
                    evidence_refs=["T3", "src/calc/ops.py:7"])[:2] == ("MODIFY", "validated")
    assert gate_one(py, claim="BROKEN in src/calc/ops.py has the wrong type",
                    evidence_refs=["T3", "src/calc/ops.py:10"])[:2] == ("WARNING", "downgraded")


def test_unknown_tool_id_and_unshown_location(py: Ledger):
    v = gate_one(py, claim=REGRESSION, evidence_refs=["T99"])
    assert v[:2] == ("WARNING", "downgraded") and "T99 is not a tool call of this review" in v[2]
    v = gate_one(py, claim="src/calc/ops.py breaks", evidence_refs=["src/calc/ops.py:999"])
    assert v[:2] == ("WARNING", "downgraded")
    assert "src/calc/ops.py:999 was not shown by any tool call of this review" in v[2]


def test_location_must_come_from_the_cited_call(py: Ledger):
    # ops.py:7 is a new type error (shown by T3 and T5) but the claim cites T1, which never showed it.
    v = gate_one(py, claim="scale in src/calc/ops.py returns the wrong type", evidence_refs=["T1", "src/calc/ops.py:7"])
    assert v[:2] == ("WARNING", "downgraded")
    assert "src/calc/ops.py:7 was not shown by the cited calls" in v[2]


def test_citing_a_call_does_not_borrow_an_artifact_at_another_location(py: Ledger):
    # T3 holds the ops.py:7 artifact, but the claim pins ops.py:10 (pre-existing): no borrowing.
    assert gate_one(py, claim="src/calc/ops.py is wrong", evidence_refs=["T3", "src/calc/ops.py:10"])[:2] == \
        ("WARNING", "downgraded")


def test_paths_match_exactly_not_by_suffix(py: Ledger):
    assert gate_one(py, claim="ops.py returns the wrong type", evidence_refs=["T3", "ops.py:7"])[:2] == \
        ("WARNING", "downgraded")
    assert gate_one(py, claim="ops.py returns the wrong type", evidence_refs=["T3", "calc/ops.py:7"])[:2] == \
        ("WARNING", "downgraded")


def test_search_hits_on_unchanged_lines_that_name_nothing_retired(py: Ledger):
    hits = [f"{s.file}:{s.line}" for s in py.calls[3].shown]
    assert hits, "the search showed lines"
    assert py.calls[3].artifacts == []
    for h in hits:
        assert gate_one(py, claim=f"{h} is wrong", evidence_refs=["T4", h])[:2] == ("WARNING", "downgraded")


def test_claim_must_relate_to_its_artifact(py: Ledger):
    v = gate_one(py, claim="The README is out of date", evidence_refs=["T1"])
    assert v[:2] == ("WARNING", "downgraded")
    assert "no cited artifact relates to what the claim says" in " ".join(v[2])


def test_not_confirmed_and_warnings(py: Ledger):
    assert gate_one(py, claim=REGRESSION, evidence_refs=["T1"], result="unable_to_verify")[:2] == \
        ("WARNING", "downgraded")
    assert gate_one(py, claim=REGRESSION, evidence_refs=["T1"], verdict="WARNING")[:2] == ("WARNING", "unconfirmed")
    assert gate_one(py, claim=REGRESSION, evidence_refs=["T1"], verdict="REPLACE")[:2] == ("REPLACE", "validated")
    assert gate_one(py, claim=REGRESSION, evidence_refs=[])[:2] == ("WARNING", "downgraded")


def test_dangling_reference_in_config_validates(ref: Ledger):
    call = ref.calls[0]
    assert [(a.file, a.line) for a in call.artifacts] == [("settings.json", 1)]
    assert gate_one(ref, claim="legacy_total was deleted but settings.json still names it",
                    evidence_refs=["T1", "settings.json:1"])[:2] == ("MODIFY", "validated")


@pytest.mark.parametrize("loc", ["src/app/report.py:1", "src/app/report.py:3", "CHANGELOG.md:1",
                                 "src/app/totals.py:5"])
def test_comments_docstrings_prose_and_added_lines_never_validate(ref: Ledger, loc: str):
    # report.py:1 is a comment, :3 a docstring, CHANGELOG.md is prose, totals.py:5 is the patch's own line.
    shown = {f"{s.file}:{s.line}" for s in ref.calls[0].shown}
    assert loc in shown
    assert gate_one(ref, claim=f"legacy_total still used at {loc}", evidence_refs=["T1", loc])[:2] == \
        ("WARNING", "downgraded")


def test_truncated_artifacts_cannot_be_cited(tmp_path):
    case = make_case(tmp_path / "t", PY_BASE, PY_HEAD, checks={"tests": ["tests/test_ops.py"], "typecheck": "pyright"})
    with open_snapshot(case=case) as snap:
        ctx = tool_context(snap)
        ctx.policy = ctx.policy.merged({"output": {"max_chars": 100}}, "test")
        ledger = Ledger(ctx)
        call = ledger.call("typecheck", {})
        assert "[output cut" in call.output and call.artifacts == []
        assert gate_one(ledger, claim="scale in src/calc/ops.py returns the wrong type",
                        evidence_refs=["T1", "src/calc/ops.py:7"])[:2] == ("WARNING", "downgraded")


def test_verdict_aggregation(py: Ledger):
    gated = apply_gate([Claim(claim=REGRESSION, evidence_refs=["T1"], result="confirmed", verdict="MODIFY"),
                        Claim(claim="BROKEN is odd", evidence_refs=["T3"], result="confirmed", verdict="REPLACE")],
                       py.calls)
    assert [g.verdict for g in gated] == ["MODIFY", "WARNING"]
    assert most_severe([g.verdict for g in gated]) == "MODIFY"
    assert most_severe([g.claim.verdict for g in gated]) == "REPLACE"
    assert most_severe([]) == "KEEP"


def test_property_pre_existing_or_irrelevant_evidence_never_validates(py: Ledger, ref: Ledger):
    """Any mix of non-qualifying references, any wording, any blocking verdict: never validated."""
    rng = random.Random(20261130)
    junk = {
        id(py): ["T2", "tests/test_red.py::test_red_on_base", "src/calc/ops.py:10", "T4", "T99", "T0", "ops.py:7",
                 "src/calc/ops.py:999", "tests/test_ops.py::test_scale", "src/calc/ops.py", "T3:7", "*",
                 *(f"{s.file}:{s.line}" for s in py.calls[3].shown)],
        id(ref): ["src/app/report.py:1", "src/app/report.py:3", "CHANGELOG.md:1", "src/app/totals.py:5",
                  "T7", "settings.json:2", "settings.json", "app/settings.json:1"],
    }
    words = ["test_red_on_base", "BROKEN", "ops.py", "legacy_total", "report.py", "CHANGELOG.md", "import", "T1"]
    for _ in range(400):
        ledger = rng.choice([py, ref])
        refs = rng.sample(junk[id(ledger)], k=rng.randint(0, 4))
        claim = Claim(claim=" ".join(rng.sample(words, k=3)), evidence_refs=refs, result="confirmed",
                      verdict=rng.choice(["MODIFY", "REPLACE"]), location=rng.choice([None, *junk[id(ledger)]]))
        g = apply_gate([claim], ledger.calls)[0]
        assert g.status == "downgraded" and g.verdict == "WARNING", (refs, claim.claim)


def test_concurrent_calls_on_one_ledger_never_share_an_id(tmp_path):
    """Calls made at the same time (an MCP client's, a judge's probes) get distinct ids, recorded in id order."""
    import threading

    from showcause.evidence.ledger import Ledger
    from showcause.service.inputs import open_snapshot, tool_context

    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    with open_snapshot(repo=repo) as snap:
        ledger = Ledger(tool_context(snap))
        view = ledger.view("base", ["read_file"])
        barrier = threading.Barrier(8)

        def one(i: int) -> None:
            barrier.wait()
            (view if i % 2 else ledger).call("read_file", {"path": "a.py"})

        threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        batch = ledger.call_many([("read_file", {"path": "a.py"})] * 3)
    assert [c.id for c in ledger.calls] == [f"T{n}" for n in range(1, 12)]
    assert [c.id for c in batch] == ["T9", "T10", "T11"]
    assert all(c.output.startswith(c.id + " ") for c in ledger.calls)
    assert sorted(c.tree for c in ledger.calls) == ["base"] * 4 + ["head"] * 7


def test_a_quote_that_belongs_to_a_test_id_is_kept():
    """Found on remark: the test "should show version on `--version`" was cited with its own closing backtick
    stripped, no longer matched the run's artifact, and the block became a WARNING (a missed regression)."""
    from showcause.evidence.gate import parse_ref

    title = "test.js::remark-cli > should show version on `--version`"
    assert parse_ref(title).text == title
    assert parse_ref(f"`{title}`").text == title
    assert parse_ref("  'T3' ").text == "T3" and parse_ref("`\"src/a.py:4\"`").text == "src/a.py:4"
    assert parse_ref("test.js::says 'hi'").text == "test.js::says 'hi'"
