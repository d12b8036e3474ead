"""`review --mode quorum`: the members of a tier run at the same time, yet ids and results never depend on which
member answered first (each works on its own fork of the ledger; calls join in the configuration's order)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llm_server_base import slow
from llm_servers import AnthropicServer, OpenAIServer, start_server, turn
from quorum_servers import SourceSpec, config_for
from showcause import service
from showcause.service import ChangeSource, ReviewOptions

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo-case"
TEST_ID = "tests/test_cart.py::test_total_with_discount"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUORUM_TEST_KEY", "sk-test-parallel-0007")


def _member(path: str, own_id: str, severity: str) -> list[dict[str, Any]]:
    """One read of `path`, then a validated claim citing the probes' test call, its own call and the test."""
    claim = {"claim": f"{TEST_ID} fails on head: the discount hook was renamed (see {own_id})", "result": "confirmed",
             "evidence_refs": ["T1", own_id, TEST_ID], "verdict": "MODIFY", "severity": severity}
    return [turn(tool_calls=[("read_file", {"path": path})]),
            turn(content=json.dumps({"summary": f"read {path} as {own_id}", "claims": [claim]}))]


def _run(tmp_path: Path, delays: tuple[float, float]) -> tuple[Any, list[float]]:
    # Each member sees its own read as T4 (the probes made T1-T3): neither knows what the other did.
    a = start_server(OpenAIServer, _member("src/shop/cart.py", "T4", "high"))
    b = start_server(AnthropicServer, _member("src/shop/hooks.py", "T4", "critical"))
    for server, delay in zip((a, b), delays, strict=True):
        if delay:
            server.fail(slow(delay))
    try:
        path = tmp_path / "quorum.json"
        path.write_text(json.dumps(config_for([SourceSpec("a", a, 1, 1), SourceSpec("b", b, 1, 1)], {"tier1": 2},
                                              "a", timeoutMs=20000)), encoding="utf-8")
        result = service.review_change(ChangeSource(case=DEMO), ReviewOptions(mode="quorum", quorum=path))
        arrivals = [a.posts()[0].at, b.posts()[0].at]
    finally:
        a.stop()
        b.stop()
    return result, arrivals


def _shape(result: Any) -> tuple[Any, ...]:
    return (result.verdict, [(c.id, c.tool, c.args.get("path"), c.output.split(" ", 1)[0]) for c in result.tool_calls],
            [(c.source, c.status, c.claim.evidence_refs) for c in result.claims if c.source == "model"],
            result.meta.extras["quorum"]["members"], result.meta.extras["quorum"]["findings"], result.summary)


def test_a_tiers_members_run_at_once_and_their_ids_do_not_depend_on_who_is_faster(tmp_path: Path):
    both_slow, arrivals = _run(tmp_path, (1.0, 1.0))
    # Both first requests arrived before either one's second of delay was over: the tier ran in parallel.
    assert abs(arrivals[0] - arrivals[1]) < 0.8
    calls = [(c.id, c.tool, c.args.get("path")) for c in both_slow.tool_calls]
    assert calls[3:] == [("T4", "read_file", "src/shop/cart.py"), ("T5", "read_file", "src/shop/hooks.py")]
    assert [c.id for c in both_slow.tool_calls] == ["T1", "T2", "T3", "T4", "T5"]
    assert all(c.output.startswith(c.id + " ") for c in both_slow.tool_calls)
    quorum = both_slow.meta.extras["quorum"]
    # b's own T4 is T5 in the review: its claim (the finding's lead, the most severe) cites it so, text too.
    lead = [c for c in both_slow.claims if c.source == "model"]
    assert [(c.status, c.claim.evidence_refs) for c in lead] == [("validated", ["T1", "T5", TEST_ID])]
    assert lead[0].claim.claim.endswith("(see T5)")
    assert [(f["members"], f["validated"]) for f in quorum["findings"]] == [(["a", "b"], True)]
    assert [(m["name"], m["verdict"]) for m in quorum["members"]] == [("a", "MODIFY"), ("b", "MODIFY")]
    # a slower than b by far: b's calls come back first, the review is the same.
    a_last, _ = _run(tmp_path, (1.5, 0.0))
    assert _shape(a_last) == _shape(both_slow)


def test_a_cited_id_a_member_never_saw_becomes_one_no_call_has():
    from showcause.core.claims import Claim
    from showcause.evidence.renumber import Renumbering

    moves = Renumbering(3, {"T4": "T6", "T5": "T7"})
    claim = Claim(claim="T5 shows it; T4 and T2 too; T9 was never made", evidence_refs=["T5", "T2", "T9", "`T4`"],
                  location="src/a.py:3")
    moved = moves.claim(claim)
    assert moved.claim == "T7 shows it; T6 and T2 too; T0 was never made"
    assert moved.evidence_refs == ["T7", "T2", "T0", "`T6`"] and moved.location == "src/a.py:3"
