"""Decision reviews: a decision file (`showcause review --decision FILE`) or its fields (the MCP tool) ->
the chosen mode -> the result (and, for a file, the report text and exit code); each review is logged to the
telemetry log when that is on (showcause/telemetry.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from showcause.core.decision import DecisionInput, decision_from_fields, load_decision
from showcause.core.decision_result import DECISION_FAIL_ON, DecisionResult, decision_exit_code
from showcause.core.errors import InputError
from showcause.decision.modes import DecisionMode, DecisionOptions
from showcause.decision.registry import decision_mode
from showcause.decision.render import DECISION_FORMATS, render_decision
from showcause.judges.blindness import Thresholds, thresholds
from showcause.judges.budget import Budget
from showcause.judges.contract import mode_budget, require_model
from showcause.policy import load_policy
from showcause.telemetry import decision_record, log_review, telemetry_path

__all__ = ["decision_budget", "review_decision", "review_decision_fields", "review_decision_input"]


def _prepare(mode: str | DecisionMode | None, model: str | None, base_url: str | None, config: Path | None,
             warn: float | None, leak: float | None) -> tuple[DecisionMode, DecisionOptions]:
    """The mode and its options; every usage problem is an InputError (exit 2) before any call."""
    chosen = decision_mode(mode, has_model=bool(model)) if mode is None or isinstance(mode, str) else mode
    model = require_model(chosen.spec, model, "decision mode") if chosen.spec.needs_model else model or ""
    if config is not None and not config.is_file():
        raise InputError(f"{config}: no such config file")
    policy = load_policy(config) if config is not None else load_policy()
    limits = thresholds(warn, leak, Thresholds(policy.review.blindness_warn, policy.review.blindness_leak))
    return chosen, DecisionOptions(model=model, base_url=base_url, thresholds=limits,
                                   budget=mode_budget(chosen.spec, policy) or Budget())


def _run(chosen: DecisionMode, decision: DecisionInput, options: DecisionOptions, log: Path | None) -> DecisionResult:
    result = chosen.review(decision, options)
    log_review(log, decision_record(result, decision, options.model), result.meta)
    return result


def review_decision(path: Path, *, mode: str | None, model: str | None, base_url: str | None, fmt: str,
                    fail_on: str | None, warn: float | None = None, leak: float | None = None,
                    config: Path | None = None) -> tuple[DecisionResult, str, int]:
    """(result, rendered report, exit code). Usage and input problems raise InputError (exit 2) before any call.

    The budget and the blindness thresholds come from the policy's `[review]` keys (with ``config`` applied
    over the defaults); ``warn`` and ``leak`` (command-line flags) override the thresholds."""
    decision_mode(mode, has_model=bool(model))   # an unknown mode is named first: InputError
    if fmt not in DECISION_FORMATS:
        raise InputError(f"`decision` takes `fmt` {', '.join(DECISION_FORMATS)} (sarif and github need code "
                         f"locations), not {fmt!r}")
    rule = fail_on or "never"
    if rule not in DECISION_FAIL_ON:
        raise InputError(f"`decision` takes `fail_on` {', '.join(DECISION_FAIL_ON)}, not {rule!r}")
    chosen, options = _prepare(mode, model, base_url, config, warn, leak)
    log = telemetry_path(config)
    result = _run(chosen, load_decision(path), options, log)
    return result, render_decision(result, fmt), decision_exit_code(result, rule)


def review_decision_fields(fields: dict[str, Any], *, mode: str | None = None, model: str | None = None,
                           base_url: str | None = None, config: Path | None = None) -> dict[str, Any]:
    """Review a decision given as fields (the predecessor's: `objective`, `constraints`, `context`,
    `proposed_solution`, `decision_type`, `risk_level`, optional `review_mode`, `environment`, `evidence`).

    Returns the decision result JSON (as `--format json`): the verdict, recommendation, assumptions, risks,
    alternative, falsification probe, confidence and `meta`, never the blind phase's position. Bad fields and
    usage problems raise InputError (exit 2) before any call; a failed review (BLINDNESS_LEAK refused before
    any call, a provider error …) is an INCONCLUSIVE result with its `error`."""
    if not isinstance(fields, dict):
        raise InputError("a decision is a JSON object of fields")
    data = dict(fields)
    named = data.pop("review_mode", None)    # the predecessor's field for the mode
    if named is not None and not isinstance(named, str):
        raise InputError("review_mode must be a string: blind_first or proposal_first")
    if named is not None and mode is not None and named != mode:
        raise InputError(f"review_mode {named!r} and mode {mode!r} disagree: give one")
    chosen, options = _prepare(mode if mode is not None else named, model, base_url, config, None, None)
    log = telemetry_path(config)
    return _run(chosen, decision_from_fields(data, "the decision"), options, log).to_json()


def review_decision_input(decision: DecisionInput, *, mode: str | DecisionMode, model: str,
                          base_url: str | None = None, config: Path | None = None) -> DecisionResult:
    """One review of a validated decision in ``mode`` (a decision mode's name, or a mode itself: the bench
    passes its arms; every mode under the same policy, hence the same budget; not logged to telemetry, as a
    bench review is no decision anyone takes)."""
    chosen, options = _prepare(mode, model, base_url, config, None, None)
    return chosen.review(decision, options)


def decision_budget(mode: DecisionMode, config: Path | None = None) -> dict[str, Any]:
    """The budget one review in decision mode ``mode`` runs under (what the bench reports per mode)."""
    policy = load_policy(config) if config is not None else load_policy()
    budget = mode_budget(mode.spec, policy) or Budget()
    return {k: getattr(budget, k) for k in ("tokens", "completion_tokens", "seconds", "tool_calls", "turns")}
