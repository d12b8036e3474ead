"""The typed `meta` of a result: the exact JSON of each kind (keys, their order, values), what the real writers
produce, and reading a result's meta back (`from_json`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blind_samples import POSITION_JSON, VERDICT_JSON, decision
from builders import make_case
from llm_servers import OpenAIServer, turn
from projects import PY_BASE, PY_HEAD
from showcause.core.decision_result import DecisionResult
from showcause.core.meta import DecisionMeta, JudgeMeta, ReviewMeta
from showcause.core.result import ReviewResult
from showcause.decision.modes import DecisionOptions
from showcause.decision.registry import run_decision
from showcause.judges.base import ReviewRequest
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py: a review asks for the isolation level

ID = "0123456789abcdef"
HEAD = ["mode", "model", "usage", "cost_usd", "seconds", "isolation", "warnings", "review_id"]
DECISION_HEAD = ["mode", "input", "model", "phases", "usage", "cost_usd", "seconds", "review_id", "blindness"]
BLINDNESS = {"score": 0.0, "n": 5, "shared": 0, "total": 6, "warn_threshold": 0.15, "leak_threshold": 0.5,
             "warning": False}
USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "turns": 2, "cost_estimated": False}
QUORUM = {"tiers": [1], "required_weight": 2, "effective_votes": 1, "members": [], "findings": [], "cost": {}}
MODEL_ERROR = {"code": "MALFORMED_RESPONSE", "message": "no JSON"}


def _head(mode: str = "mechanical", model: str | None = None, **fields: Any) -> dict[str, Any]:
    """The head every review's meta starts with, in its order."""
    return {"mode": mode, "model": model, "usage": fields.pop("usage", {}), "cost_usd": fields.pop("cost_usd", None),
            "seconds": 1.5, "isolation": "bwrap", "warnings": fields.pop("warnings", []), "review_id": ID, **fields}


def _meta(mode: str = "mechanical", model: str | None = None, judge: JudgeMeta | None = None,
          **fields: Any) -> ReviewMeta:
    """A review's meta as the service builds it: the head, what it settled, then what the judge reported."""
    meta = ReviewMeta(mode=mode, model=model, seconds=1.5, isolation="bwrap", review_id=ID, **fields)
    meta.add(judge or JudgeMeta())
    return meta


# Each kind of review result: its meta as built, and its exact JSON (a dict literal in the wire's key order).
REVIEW_KINDS: dict[str, tuple[ReviewMeta, dict[str, Any]]] = {
    "mechanical KEEP": (_meta(prompts={}, claims_dropped=0), _head(prompts={}, claims_dropped=0)),
    "mechanical MODIFY with notes, unsandboxed": (
        _meta(warnings=["isolation none"], notes=["no tests"], prompts={}, claims_dropped=0),
        _head(warnings=["isolation none"], notes=["no tests"], prompts={}, claims_dropped=0)),
    "model mode": (
        _meta("evidence_gate", "openai:m", usage=USAGE, cost_usd=0.01, prompts={"evidence_gate": "h"},
              claims_dropped=2),
        _head("evidence_gate", "openai:m", usage=USAGE, cost_usd=0.01, prompts={"evidence_gate": "h"},
              claims_dropped=2)),
    "model failed, the probes' verdict stands": (
        _meta("evidence_gate", "openai:m", prompts={}, claims_dropped=0, judge=JudgeMeta(model_error=MODEL_ERROR)),
        _head("evidence_gate", "openai:m", prompts={}, claims_dropped=0, model_error=MODEL_ERROR)),
    "quorum": (
        _meta("quorum", "quorum:a,b", notes=["n"], prompts={"quorum": "h"}, claims_dropped=0,
              judge=JudgeMeta(extras={"quorum": QUORUM})),
        _head("quorum", "quorum:a,b", notes=["n"], prompts={"quorum": "h"}, claims_dropped=0, quorum=QUORUM)),
    "quorum, no member answered, the probes' verdict stands": (
        _meta("quorum", None, prompts={}, claims_dropped=0,
              judge=JudgeMeta(model_error=MODEL_ERROR, extras={"quorum": QUORUM})),
        _head("quorum", None, prompts={}, claims_dropped=0, model_error=MODEL_ERROR, quorum=QUORUM)),
    "blind_first": (
        _meta("blind_first", "openai:m", prompts={"blind_first": "h"}, claims_dropped=0,
              judge=JudgeMeta(blindness=BLINDNESS, phases=2)),
        _head("blind_first", "openai:m", prompts={"blind_first": "h"}, claims_dropped=0, blindness=BLINDNESS,
              phases=2)),
    "blind_first, phase 2 out of budget, the probes' verdict stands": (
        _meta("blind_first", "openai:m", prompts={}, claims_dropped=0,
              judge=JudgeMeta(blindness=BLINDNESS, phases=2, budget_exhausted=True, model_error=MODEL_ERROR)),
        _head("blind_first", "openai:m", prompts={}, claims_dropped=0, blindness=BLINDNESS, phases=2,
              budget_exhausted=True, model_error=MODEL_ERROR)),
    "INCONCLUSIVE": (_meta(), _head()),
    "INCONCLUSIVE, blindness leak": (
        _meta("blind_first", "openai:m", judge=JudgeMeta(blindness=BLINDNESS)),
        _head("blind_first", "openai:m", blindness=BLINDNESS)),
    "INCONCLUSIVE, blind_first out of budget": (
        _meta("blind_first", "openai:m",
              judge=JudgeMeta(blindness=BLINDNESS, phases=1, prompts={"blind_first": "h"}, budget_exhausted=True)),
        _head("blind_first", "openai:m", blindness=BLINDNESS, phases=1, prompts={"blind_first": "h"},
              budget_exhausted=True)),
    "INCONCLUSIVE, no quorum member answered": (
        _meta("quorum", None, judge=JudgeMeta(extras={"quorum": QUORUM})), _head("quorum", None, quorum=QUORUM)),
    "telemetry not written": (
        _meta(prompts={}, claims_dropped=0, telemetry_error="not logged"),
        _head(prompts={}, claims_dropped=0, telemetry_error="not logged")),
    "cut by the MCP server": (
        _meta("quorum", None, prompts={}, claims_dropped=0, judge=JudgeMeta(extras={"quorum": QUORUM}),
              telemetry_error="not logged", truncated={"cut": []}),
        _head("quorum", None, prompts={}, claims_dropped=0, quorum=QUORUM, telemetry_error="not logged",
              truncated={"cut": []})),
}


def _decision(**fields: Any) -> tuple[DecisionMeta, dict[str, Any]]:
    head = {"mode": "blind_first", "input": "decision", "model": "openai:m", "phases": fields.pop("phases", 2),
            "usage": USAGE, "cost_usd": None, "seconds": 1.5, "review_id": ID, "blindness": BLINDNESS}
    built = DecisionMeta(**{**head, **fields})
    return built, {**head, **fields}


DECISION_KINDS: dict[str, tuple[DecisionMeta, dict[str, Any]]] = {
    "completed": _decision(prompts={"decision_reveal": "h", "decision_system": "h"}),
    "budget exhausted": _decision(phases=1, prompts={"decision_system": "h"}, budget_exhausted=True),
    "blindness leak": _decision(phases=0),
    "telemetry not written": _decision(prompts={"decision_system": "h"}, telemetry_error="not logged"),
}


@pytest.mark.parametrize("kind", REVIEW_KINDS)
def test_a_review_meta_serialises_to_its_pinned_json(kind: str):
    meta, wire = REVIEW_KINDS[kind]
    assert json.dumps(meta.to_json()) == json.dumps(wire)


@pytest.mark.parametrize("kind", DECISION_KINDS)
def test_a_decision_meta_serialises_to_its_pinned_json(kind: str):
    meta, wire = DECISION_KINDS[kind]
    assert json.dumps(meta.to_json()) == json.dumps(wire)


@pytest.mark.parametrize("kind", [*REVIEW_KINDS, *(f"decision {k}" for k in DECISION_KINDS)])
def test_a_meta_read_back_from_its_json_serialises_the_same(kind: str):
    meta, wire = DECISION_KINDS[kind[9:]] if kind.startswith("decision ") else REVIEW_KINDS[kind]
    text = json.dumps(wire)
    again = type(meta).from_json(json.loads(text))
    assert again == meta and json.dumps(again.to_json()) == text


def test_an_unknown_key_is_kept_in_extras():
    wire = {**_head(prompts={}, claims_dropped=0), "newer": {"x": 1}}
    meta = ReviewMeta.from_json(wire)
    assert meta.extras == {"newer": {"x": 1}} and meta.to_json() == wire


def test_what_a_failed_step_reports_merges_later_over_earlier():
    earlier = JudgeMeta(blindness=BLINDNESS, phases=1, prompts={"a": "h"}, extras={"x": 1})
    merged = earlier.merged(JudgeMeta(phases=2, model_error=MODEL_ERROR, extras={"y": 2}))
    assert merged == JudgeMeta(BLINDNESS, 2, {"a": "h"}, None, MODEL_ERROR, {"x": 1, "y": 2})
    assert earlier.extras == {"x": 1} and earlier.phases == 1    # not changed


def test_the_results_keep_their_top_level_order():
    failed = ReviewResult("INCONCLUSIVE", "INCONCLUSIVE", "s", meta=_meta(), error={"code": "C", "message": "m"})
    assert list(failed.to_json()) == ["verdict", "model_verdict", "summary", "claims", "tool_calls", "meta", "error"]
    done = DecisionResult("KEEP", meta=DECISION_KINDS["completed"][0])
    assert list(done.to_json()) == ["kind", "verdict", "recommendation", "critical_assumptions", "material_risks",
                                    "better_alternative", "falsification_probe", "confidence", "meta"]


# ---- what the real writers produce ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_case(tmp_path_factory.mktemp("meta") / "tiny", PY_BASE, PY_HEAD,
                     checks={"tests": ["tests/test_ops.py"], "typecheck": "none"})


def _review(case: Path, mode: str, request: ReviewRequest) -> dict[str, Any]:
    with open_snapshot(case=case) as snap:
        return run_review(tool_context(snap), mode, request).to_json()["meta"]


def test_a_mechanical_review_writes_the_head_then_what_it_settled(tiny: Path):
    meta = _review(tiny, "mechanical", ReviewRequest())
    assert list(meta)[:8] == HEAD and list(meta)[8:] in (["prompts", "claims_dropped"],
                                                         ["notes", "prompts", "claims_dropped"])
    assert (meta["mode"], meta["model"], meta["prompts"], meta["claims_dropped"]) == ("mechanical", None, {}, 0)


def test_a_failed_blind_review_writes_what_the_judge_reported_after_the_head(tiny: Path):
    with OpenAIServer() as server:
        leaked = _review(tiny, "blind_first", ReviewRequest(model="openai:m", base_url=server.url, task="make add "
                                                            "subtract as agreed", plan="make add subtract as agreed"))
        server.add_turns(turn(content='{"summary": "add adds"}',
                              usage={"prompt_tokens": 99_700, "completion_tokens": 100}))
        spent = _review(tiny, "blind_first", ReviewRequest(model="openai:m", base_url=server.url, task="t", plan="p"))
    assert list(leaked) == [*HEAD, "blindness"]
    assert list(spent) == [*HEAD, "blindness", "phases", "prompts", "budget_exhausted"]


def test_a_decision_review_writes_its_meta_in_order():
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps(POSITION_JSON)), turn(content=json.dumps(VERDICT_JSON)))
        done = run_decision(decision(), "blind_first", DecisionOptions(model="openai:m", base_url=server.url))
        server.add_turns(turn(content=json.dumps(POSITION_JSON),
                              usage={"prompt_tokens": 59_000, "completion_tokens": 600}))
        spent = run_decision(decision(), "blind_first", DecisionOptions(model="openai:m", base_url=server.url))
        leaked = run_decision(decision(context="As discussed: " + decision().proposed_solution), "blind_first",
                              DecisionOptions(model="openai:m", base_url=server.url))
    assert list(done.to_json()["meta"]) == [*DECISION_HEAD, "prompts"]
    assert list(done.to_json()["meta"]["prompts"]) == ["decision_reveal", "decision_verdict", "decision_system",
                                                       "decision_blind"]
    assert list(spent.to_json()["meta"]) == [*DECISION_HEAD, "prompts", "budget_exhausted"]
    assert list(leaked.to_json()["meta"]) == DECISION_HEAD
