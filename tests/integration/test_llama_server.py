"""evidence_gate against a real third-party OpenAI-compatible server (llama.cpp's own, a 270M base model).

The model is far too small to review code, which is the point: whatever a real server and a weak model
send back, a review must finish or be INCONCLUSIVE with a documented error code, never crash, and never
block a correct change with a validated MODIFY/REPLACE.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from llamacpp import OUTCOMES, REPO, LlamaServer

from showcause.judges.loop import tool_specs
from showcause.providers.base import CompletionOptions, Message, ProviderConfig
from showcause.providers.openai import openai_provider

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

CASES = REPO / "repo_cases"
# docs/modes.md: every error code that makes a review INCONCLUSIVE.
ERROR_CODES = {"CONFIG_ERROR", "INVALID_INPUT", "PROVIDER_HTTP_ERROR", "PROVIDER_NETWORK_ERROR", "RATE_LIMITED",
               "TIMEOUT", "BUDGET_EXCEEDED", "MALFORMED_RESPONSE", "OUTPUT_TRUNCATED", "BLINDNESS_LEAK",
               "INTERNAL_ERROR"}
# What a weak model can cause. A wire or transport failure (PROVIDER_HTTP_ERROR and the like) against a
# healthy server is a bug on one side, not an acceptable outcome: it once hid a null `content` it refused.
MODEL_CAUSED = {"TIMEOUT", "BUDGET_EXCEEDED", "MALFORMED_RESPONSE", "OUTPUT_TRUNCATED"}
BLOCKING = {"MODIFY", "REPLACE"}
SHOWCAUSE = Path(sys.executable).with_name("showcause")
# A small review budget (the `[review]` keys of sandbox/policy.toml): on two shared cores this model reads a
# prompt at 50-120 tokens a second and writes 1-20 (grammar-constrained tokens are the slow ones), so the
# default 8,000 completion tokens a call would take hours. Two tool calls, then the forced final turn.
BUDGET_TOML = """\
[review]
max_tool_calls = 2
max_completion_tokens = 256
review_timeout_s = 600.0
"""
# Three correct cases of each language, the first in name order: a whole run over all of them takes
# about 2-4 minutes a case here. SHOWCAUSE_INTEGRATION_ALL=1 reviews every correct case instead.
PER_LANGUAGE = 3


def _correct_cases() -> list[str]:
    """Every correct repo case (truth.status == "correct"), sorted: the labels say a KEEP is right."""
    found = []
    for case_json in sorted(CASES.glob("*/case.json")):
        truth: dict[str, Any] = json.loads(case_json.read_text(encoding="utf-8")).get("truth", {})
        if truth.get("status") == "correct":
            found.append(case_json.parent.name)
    return found


def _reviewed_cases() -> list[str]:
    cases = _correct_cases()
    if os.environ.get("SHOWCAUSE_INTEGRATION_ALL") == "1":
        return cases
    return [c for lang in ("js", "py") for c in [c for c in cases if c.startswith(f"{lang}-")][:PER_LANGUAGE]]


def _review(server: LlamaServer, case: str, config: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.run(
        [str(SHOWCAUSE), "review", "--case", str(CASES / case), "--model", f"openai:{server.model}",
         "--base-url", server.base_url, "--config", str(config), "--format", "json"],
        capture_output=True, text=True, env=env, timeout=900, check=False)


@pytest.fixture(scope="session")
def budget_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("budget") / "budget.toml"
    path.write_text(BUDGET_TOML, encoding="utf-8")
    return path


def test_the_reviewed_cases_are_correct_ones_of_both_languages() -> None:
    cases = _reviewed_cases()
    assert set(cases) <= set(_correct_cases()) and len(cases) >= 2 * PER_LANGUAGE
    assert {c.split("-", 1)[0] for c in cases} == {"js", "py"}


def test_models_endpoint_lists_the_alias(llama_server: LlamaServer) -> None:
    provider = openai_provider(llama_server.model, llama_server.base_url, ProviderConfig(max_retries=0))
    assert provider.list_models() == [llama_server.model]


def test_tool_calls_from_the_grammar_are_well_formed(llama_server: LlamaServer) -> None:
    """Our provider's exact request (tools, tool_choice auto) comes back as calls the harness can run."""
    specs = tool_specs()
    provider = openai_provider(llama_server.model, llama_server.base_url, ProviderConfig(max_retries=0))
    messages = [Message("system", "You review code changes. Call a tool to look at the repository."),
                Message("user", "Where is the function load_config defined? Use find_symbol.")]
    turn = provider.complete(messages, CompletionOptions(tools=tuple(specs), tool_choice="auto", max_tokens=256,
                                                        temperature=0.0, timeout_s=300))
    assert turn.usage.prompt_tokens > 0 and not turn.usage.estimated
    assert turn.finish_reason == "tool_calls", turn
    assert turn.tool_calls, turn
    names = {s.name for s in specs}
    for call in turn.tool_calls:
        assert call.name in names
        assert isinstance(call.arguments, dict), call   # grammar-constrained: always a JSON object
        assert call.id
    assert len({c.id for c in turn.tool_calls}) == len(turn.tool_calls)


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("case", _reviewed_cases())
def test_evidence_gate_on_a_correct_case(case: str, llama_server: LlamaServer, budget_config: Path) -> None:
    before = llama_server.completions_logged()
    started = time.monotonic()
    proc = _review(llama_server, case, budget_config)
    seconds = time.monotonic() - started
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 3), f"exit {proc.returncode}\nstdout: {proc.stdout[:2000]}\nstderr: {proc.stderr}"
    result: dict[str, Any] = json.loads(proc.stdout)
    assert result["meta"]["mode"] == "evidence_gate"
    assert result["verdict"] in ("KEEP", "WARNING", "INCONCLUSIVE"), result["verdict"]
    for claim in result["claims"]:
        assert not (claim["gate"]["status"] == "validated" and claim["verdict"] in BLOCKING), claim
    if result["verdict"] == "INCONCLUSIVE":
        assert proc.returncode == 3
        assert result["error"]["code"] in ERROR_CODES, result["error"]
        assert result["error"]["code"] in MODEL_CAUSED, f"{result['error']}\n{llama_server.log_tail()}"
    else:
        assert proc.returncode == 0
        assert "error" not in result
        assert result["meta"]["usage"]["prompt_tokens"] > 0, result["meta"]
    # The server really answered this review (its log: one slot release a finished completion).
    answered = llama_server.completions_logged() - before
    # A review cut by its deadline while the server was still evaluating its first prompt (a loaded machine:
    # 20-40 prompt tokens/s) has no completed request yet; TIMEOUT is then the right outcome, checked above.
    timed_out = result.get("error", {}).get("code") == "TIMEOUT"
    assert answered > 0 or timed_out, llama_server.log_tail()
    outcome = result["error"]["code"] if "error" in result else f"{len(result['claims'])} claims"
    OUTCOMES.append(f"{case}: {result['verdict']} ({outcome}), {answered} chat completions, "
                    f"{len(result['tool_calls'])} tool calls, {seconds:.0f} s")
