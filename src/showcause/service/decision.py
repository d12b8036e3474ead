"""`showcause review --decision FILE`: options -> decision -> review -> report text and exit code."""

from __future__ import annotations

from pathlib import Path

from showcause.core.decision import load_decision
from showcause.core.decision_result import DECISION_FAIL_ON, DecisionResult, decision_exit_code
from showcause.core.errors import InputError
from showcause.judges.blindness import Thresholds, thresholds
from showcause.judges.budget import Budget
from showcause.judges.contract import mode_budget, require_model
from showcause.judges.decision_modes import DecisionOptions
from showcause.judges.registry import decision_mode
from showcause.render.decision import DECISION_FORMATS, render_decision
from showcause.sandbox.policy import load_policy

__all__ = ["review_decision"]


def review_decision(path: Path, *, mode: str | None, model: str | None, base_url: str | None, fmt: str,
                    fail_on: str | None, warn: float | None = None, leak: float | None = None,
                    config: Path | None = None) -> tuple[DecisionResult, str, int]:
    """(result, rendered report, exit code). Usage and input problems raise InputError (exit 2) before any call.

    The budget and the blindness thresholds come from the policy's `[review]` keys (with ``config`` applied
    over the defaults); ``warn`` and ``leak`` (command-line flags) override the thresholds."""
    chosen = decision_mode(mode, has_model=bool(model))   # unknown: InputError naming the decision modes
    if fmt not in DECISION_FORMATS:
        raise InputError(f"--decision takes --format {', '.join(DECISION_FORMATS)} (sarif and github need code "
                         f"locations), not {fmt!r}")
    rule = fail_on or "never"
    if rule not in DECISION_FAIL_ON:
        raise InputError(f"--decision takes --fail-on {', '.join(DECISION_FAIL_ON)}, not {rule!r}")
    model = require_model(chosen.spec, model) if chosen.spec.needs_model else model or ""
    if config is not None and not config.is_file():
        raise InputError(f"{config}: no such config file")
    policy = load_policy(config) if config is not None else load_policy()
    limits = thresholds(warn, leak, Thresholds(policy.review.blindness_warn, policy.review.blindness_leak))
    decision = load_decision(path)
    options = DecisionOptions(model=model, base_url=base_url, thresholds=limits,
                              budget=mode_budget(chosen.spec, policy) or Budget())
    result = chosen.review(decision, options)
    return result, render_decision(result, fmt), decision_exit_code(result, rule)
