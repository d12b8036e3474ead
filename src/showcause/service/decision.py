"""`showcause review --decision FILE`: options -> decision -> review -> report text and exit code."""

from __future__ import annotations

from pathlib import Path

from showcause.core.decision import load_decision
from showcause.core.decision_result import DECISION_FAIL_ON, DecisionResult, decision_exit_code
from showcause.core.errors import InputError
from showcause.judges.blindness import Thresholds, thresholds
from showcause.judges.decision_modes import DECISION_MODES, DecisionOptions, run_decision
from showcause.judges.loop import Budget
from showcause.render.decision import DECISION_FORMATS, render_decision
from showcause.sandbox.policy import load_policy

__all__ = ["review_decision"]


def review_decision(path: Path, *, mode: str | None, model: str | None, base_url: str | None, fmt: str,
                    fail_on: str | None, warn: float | None = None, leak: float | None = None,
                    config: Path | None = None) -> tuple[DecisionResult, str, int]:
    """(result, rendered report, exit code). Usage and input problems raise InputError (exit 2) before any call.

    The budget and the blindness thresholds come from the policy's `[review]` keys (with ``config`` applied
    over the defaults); ``warn`` and ``leak`` (command-line flags) override the thresholds."""
    chosen = mode or "blind_first"
    if chosen not in DECISION_MODES:
        raise InputError(f"--decision takes --mode {' or '.join(DECISION_MODES)}, not {chosen!r}")
    if fmt not in DECISION_FORMATS:
        raise InputError(f"--decision takes --format {', '.join(DECISION_FORMATS)} (sarif and github need code "
                         f"locations), not {fmt!r}")
    rule = fail_on or "never"
    if rule not in DECISION_FAIL_ON:
        raise InputError(f"--decision takes --fail-on {', '.join(DECISION_FAIL_ON)}, not {rule!r}")
    if not model:
        raise InputError("a decision review needs a model: --model provider:model (e.g. openai:gpt-5-mini)")
    if config is not None and not config.is_file():
        raise InputError(f"{config}: no such config file")
    policy = load_policy(config) if config is not None else load_policy()
    limits = thresholds(warn, leak, Thresholds(policy.blindness_warn, policy.blindness_leak))
    decision = load_decision(path)
    options = DecisionOptions(model=model, base_url=base_url, thresholds=limits, budget=Budget.from_policy(policy))
    result = run_decision(decision, chosen, options)
    return result, render_decision(result, fmt), decision_exit_code(result, rule)
