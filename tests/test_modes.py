"""The mode contract: every mode declares a ModeSpec in one registry, and the CLI, the service and the bench
read the specs (default mode, ledger tools, budget group, passes) instead of knowing mode names. A mode that
needs a model, run without one, is one error (MODEL_REQUIRED, exit 2) wherever it is chosen."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from llm_servers import OpenAIServer, turn
from showcause.bench.costs import review_reserve
from showcause.bench.decision_arms import ARMS, arm_names, bench_decision_mode
from showcause.bench.identity import budgets
from showcause.bench.runner import BenchConfig, run_bench
from showcause.core.claims import FinalAnswer
from showcause.core.decision import load_decision
from showcause.core.errors import EXIT_BAD_INPUT, InputError, ModelRequired, exit_status
from showcause.core.registry import DuplicateName
from showcause.decision.arms import DECISION_JUDGE
from showcause.decision.modes import DecisionOptions
from showcause.decision.registry import DECISION_MODES, decision_mode, register_decision_mode, run_decision
from showcause.decision.review import review_decision
from showcause.evidence.ledger import Ledger
from showcause.judges.base import JudgeAnswer, ReviewRequest
from showcause.judges.budget import Budget
from showcause.judges.contract import BUDGET_GROUPS, ModeSpec
from showcause.judges.loop import run_tool_loop
from showcause.judges.registry import CHANGE_MODES, default_mode, get_mode, mode_names, register_mode
from showcause.policy import load_policy
from showcause.providers.base import Message
from showcause.providers.registry import get_provider
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo-case"
EXAMPLE = ROOT / "examples" / "decision.json"
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
CHANGE_MODELS = [m.spec.name for m in CHANGE_MODES.all() if m.spec.needs_model]
DECISION_MODELS = [m.spec.name for m in DECISION_MODES.all() if m.spec.needs_model]


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Modes registered in a test are gone after it (the suite's registries stay the built-ins)."""
    for modes in (CHANGE_MODES, DECISION_MODES):
        modes.names()   # entry points discovered first, so the copy holds them
        monkeypatch.setattr(modes.entries, "_entries", dict(modes.entries._entries))
    yield


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=300)


# ---- the built-in specs ---------------------------------------------------------------------------------------

def test_each_registry_has_its_own_modes_and_a_name_means_one_mode_in_each():
    assert mode_names() == ["mechanical", "evidence_gate", "decision_judge", "proposal_first", "proposal_first_2pass",
                            "blind_first", "quorum"]
    assert DECISION_MODES.names() == ["blind_first", "proposal_first"]   # `--mode` with --decision: the CLI contract
    # The bench's arms are the bench's: `review --decision` never finds them, `showcause bench` does.
    assert ARMS.names() == ["proposal_first_2pass", "independent_only", "decision_judge"]
    assert arm_names() == ["blind_first", "proposal_first", "proposal_first_2pass", "independent_only",
                           "decision_judge"]
    assert DECISION_MODES.get("independent_only") is None
    with pytest.raises(InputError, match=r"unknown decision mode .independent_only.; known: blind_first, "
                                         r"proposal_first$"):
        decision_mode("independent_only", has_model=True)
    assert bench_decision_mode("independent_only", has_model=True) is ARMS.get("independent_only")
    # decision_judge is a change mode and a bench arm: each registry answers with its own.
    assert bench_decision_mode("decision_judge", has_model=True) is DECISION_JUDGE
    assert type(get_mode("decision_judge")).__name__ == "MaterialOnlyJudge"
    change, decision = get_mode("blind_first"), DECISION_MODES.get("blind_first")
    assert type(change).__name__ == "BlindFirstJudge" and type(decision).__name__ == "DecisionBlindFirst"
    assert get_mode("mechanical") is not None and DECISION_MODES.get("mechanical") is None
    with pytest.raises(InputError, match="unknown mode 'nope'; known: mechanical, evidence_gate"):
        CHANGE_MODES.chosen("nope", has_model=False)


def test_the_default_mode_is_computed_from_the_specs():
    assert default_mode(has_model=False).name == "mechanical"
    assert default_mode(has_model=True).name == "evidence_gate"
    assert DECISION_MODES.default(has_model=False).name == DECISION_MODES.default(has_model=True).name \
        == "blind_first"
    assert decision_mode(None, has_model=False) is DECISION_MODES.get("blind_first")


def test_what_each_spec_declares():
    declared = {f"{kind}:{m.spec.name}": (m.spec.needs_model, m.spec.passes, m.spec.budget, m.spec.tools)
                for kind, modes in (("change", CHANGE_MODES), ("decision", DECISION_MODES), ("arm", ARMS))
                for m in modes.all()}
    six = ("search", "find_symbol", "read_file", "list_files", "run_test", "typecheck")   # never run_probe
    assert declared == {
        "change:mechanical": (False, 0, None, ("search", "find_symbol", "run_test", "typecheck")),
        "change:evidence_gate": (True, 1, "review", six), "change:decision_judge": (True, 1, "review", ()),
        "change:proposal_first": (True, 1, "review", ()), "change:proposal_first_2pass": (True, 2, "review", ()),
        "change:blind_first": (True, 1, "blind_review", six), "change:quorum": (True, 1, "review", six),
        "decision:blind_first": (True, 1, "review", ()), "decision:proposal_first": (True, 1, "review", ()),
        # The decision bench's arms: one review budget each, whatever number of calls they make in it.
        "arm:proposal_first_2pass": (True, 1, "review", ()), "arm:independent_only": (True, 1, "review", ()),
        "arm:decision_judge": (True, 1, "review", ())}
    policy = load_policy()
    for group in BUDGET_GROUPS.values():   # a group names only keys the policy's [review] section has
        assert all(hasattr(policy.review, key) for key in group.keys), group
    assert BUDGET_GROUPS["blind_review"].build(policy).tokens == policy.review.blind_max_review_tokens


@pytest.mark.parametrize(("fields", "message"), [
    ({"budget": "huge"}, "budget must be one of"),
    ({"needs_model": False}, "passes must be 0 without a model"), ({"passes": -1}, "never negative"),
    ({"tools": ("search", "search")}, "a tool is named twice"), ({"default_for": "always"}, "default_for must be"),
])
def test_a_spec_that_contradicts_itself_is_refused(fields: dict[str, Any], message: str):
    with pytest.raises(ValueError, match=message):
        ModeSpec(name="x", description="x", **fields)


# ---- the service and the bench read the spec ------------------------------------------------------------------

class _ListsOnly:
    spec: ClassVar[ModeSpec] = ModeSpec(name="lists_only", description="Lists files, then tries to read one.",
                                        needs_model=False, passes=0, budget=None, tools=("list_files",))

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        ledger.call("list_files", {})
        ledger.call("read_file", {"path": "src/shop/cart.py"})
        return JudgeAnswer(FinalAnswer(summary="listed", claims=[]))


class _SearchesWithAModel:
    spec: ClassVar[ModeSpec] = ModeSpec(name="searcher", description="A model with search only.", tools=("search",),
                                        passes=3, budget="blind_review")

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        provider = get_provider(request.model or "", base_url=request.base_url)
        result = run_tool_loop(provider, ledger, [Message("system", "s"), Message("user", "u")], Budget())
        return JudgeAnswer(result.answer, model=result.model)


@pytest.mark.isolation
def test_a_mode_s_ledger_runs_only_the_tools_its_spec_names(plugins: None):
    register_mode(_ListsOnly())
    with open_snapshot(case=DEMO) as snap:
        result = run_review(tool_context(snap), "lists_only")
    assert [(c.tool, c.ok) for c in result.tool_calls] == [("list_files", True), ("read_file", False)]
    assert "read_file is not available here; use list_files" in result.tool_calls[1].output
    assert result.meta.mode == "lists_only" and result.verdict == "KEEP"


@pytest.mark.isolation
def test_a_model_is_offered_only_the_tools_its_mode_s_ledger_runs(plugins: None):
    register_mode(_SearchesWithAModel())
    with OpenAIServer() as server:
        server.add_turns(turn(content=json.dumps({"summary": "fine", "claims": []})))
        with open_snapshot(case=DEMO) as snap:
            result = run_review(tool_context(snap), "searcher",
                                ReviewRequest(model="openai:test-model", base_url=server.url))
        offered = [t["function"]["name"] for t in server.posts()[0].body["tools"]]
    assert result.verdict == "KEEP" and offered == ["search"]


def test_the_bench_reserves_and_pins_what_the_spec_declares(plugins: None):
    register_mode(_SearchesWithAModel())
    policy = load_policy()
    # 3 passes of the blind_review group's 100,000 tokens at gpt-5-mini's higher price (2e-6 USD a token).
    assert review_reserve("searcher", "openai:gpt-5-mini", 0.5, policy) == pytest.approx(0.6)
    pinned = budgets(policy)
    assert set(pinned) == {"default", "blind_first", "searcher"}
    assert pinned["searcher"]["tokens"] == policy.review.blind_max_review_tokens


def test_a_plugin_cannot_take_a_name_or_a_default_or_land_in_the_other_registry(plugins: None):
    class Twin(_ListsOnly):
        spec = ModeSpec(name="mechanical", description="d", needs_model=False, passes=0, budget=None)

    class Usurper(_ListsOnly):
        spec = ModeSpec(name="usurper", description="d", default_for="with_model")

    class DecisionDefault:
        spec = ModeSpec(name="decision_x", description="d", default_for="without_model")

        def review(self, decision: Any, options: Any) -> Any: ...

    with pytest.raises(DuplicateName, match="mode 'mechanical' is already registered"):
        register_mode(Twin())
    with pytest.raises(DuplicateName, match="'evidence_gate' is already the default"):
        register_mode(Usurper())
    with pytest.raises(DuplicateName, match="decision mode 'blind_first' is already the default"):
        register_decision_mode(DecisionDefault())
    # A mode of one protocol in the other's registry is refused, with where it belongs.
    with pytest.raises(TypeError, match=r"mode 'decision_x' has no judge\(\) method \(a decision mode registers in "
                                        r"group showcause.decision_modes\)"):
        register_mode(DecisionDefault())   # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"decision mode 'lists_only' has no review\(\) method"):
        register_decision_mode(_ListsOnly())   # type: ignore[arg-type]
    assert default_mode(has_model=True).name == "evidence_gate" and "usurper" not in CHANGE_MODES.entries
    assert "decision_x" not in DECISION_MODES.entries


# ---- a mode that needs a model, without one: MODEL_REQUIRED, exit 2, on every path -----------------------------

@pytest.mark.parametrize("mode", CHANGE_MODELS)
def test_cli_review_of_a_change(mode: str):
    proc = _cli("review", "--case", str(DEMO), "--mode", mode, "--format", "json")
    assert proc.returncode == EXIT_BAD_INPUT and proc.stdout == ""
    # The quorum's members come from its configuration, not from --model.
    needed = "needs models: --quorum FILE" if mode == "quorum" else "needs a model: --model provider:model"
    assert f"mode {mode!r} {needed}" in proc.stderr


@pytest.mark.parametrize("mode", DECISION_MODELS)
def test_cli_review_of_a_decision(mode: str, tmp_path: Path):
    out = tmp_path / "r.json"
    proc = _cli("review", "--decision", str(EXAMPLE), "--mode", mode, "--output", str(out))
    assert proc.returncode == EXIT_BAD_INPUT and not out.exists()
    assert f"decision mode {mode!r} needs a model" in proc.stderr


def test_cli_bench(tmp_path: Path):
    proc = _cli("bench", str(ROOT / "examples"), "--modes", "mechanical,blind_first", "--out", str(tmp_path / "o"))
    assert proc.returncode == EXIT_BAD_INPUT and "mode 'blind_first' needs a model" in proc.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("mode", CHANGE_MODELS)
def test_the_service_and_each_judge(mode: str):
    with open_snapshot(case=DEMO) as snap:
        ctx = tool_context(snap)
        with pytest.raises(ModelRequired) as raised:
            run_review(ctx, mode, ReviewRequest(task="t"))
        judge = get_mode(mode)
        assert judge is not None
        ledger = Ledger(ctx, judge.spec.tools)
        with pytest.raises(ModelRequired):   # a library caller that skips the service meets the same error
            judge.judge(ReviewRequest(task="t"), ledger)   # type: ignore[attr-defined]
    assert raised.value.code == "MODEL_REQUIRED" and exit_status(raised.value) == EXIT_BAD_INPUT
    assert isinstance(raised.value, InputError) and ledger.calls == []   # refused before any tool ran


@pytest.mark.parametrize("mode", DECISION_MODELS)
def test_the_decision_service_and_each_decision_mode(mode: str):
    with pytest.raises(ModelRequired):
        review_decision(EXAMPLE, mode=mode, model=None, base_url=None, fmt="json", fail_on=None)
    with pytest.raises(ModelRequired):
        run_decision(load_decision(EXAMPLE), mode, DecisionOptions(model=""))


def test_the_bench_check(tmp_path: Path):
    cfg = BenchConfig(ROOT / "examples", ("evidence_gate",), 1, 1, tmp_path / "o")
    with pytest.raises(ModelRequired, match="mode 'evidence_gate' needs a model"):
        run_bench(cfg)
