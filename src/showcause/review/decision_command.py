"""`showcause review --decision FILE`: options -> decision -> review -> report text and exit code."""

from __future__ import annotations

from pathlib import Path

from showcause.errors import InputError
from showcause.judges.blindness import Thresholds
from showcause.judges.decision import DECISION_MODES, DecisionOptions, run_decision
from showcause.render.decision import DECISION_FORMATS, render_decision
from showcause.review.decision import load_decision
from showcause.review.decision_result import DECISION_FAIL_ON, DecisionResult, decision_exit_code

__all__ = ["review_decision"]


def review_decision(path: Path, *, mode: str | None, model: str | None, base_url: str | None, fmt: str,
                    fail_on: str | None, thresholds: Thresholds) -> tuple[DecisionResult, str, int]:
    """(result, rendered report, exit code). Usage and input problems raise InputError (exit 2) before any call."""
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
    decision = load_decision(path)
    result = run_decision(decision, chosen, DecisionOptions(model=model, base_url=base_url, thresholds=thresholds))
    return result, render_decision(result, fmt), decision_exit_code(result, rule)
