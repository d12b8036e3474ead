"""The façade's last step: a result rendered in a format, and the exit code a rule gives it."""

from __future__ import annotations

from showcause.core.errors import InputError
from showcause.core.result import ReviewResult, exit_code
from showcause.render import RENDERERS, render

__all__ = ["FAIL_ON", "FORMATS", "check_report_options", "exit_code", "render_result"]

FORMATS = tuple(RENDERERS)
FAIL_ON = ("MODIFY", "WARNING", "never")


def check_report_options(fmt: str, fail_on: str | None) -> str:
    """The rule in force (MODIFY when none is given); an unknown format or rule is an InputError."""
    if fmt not in FORMATS:
        raise InputError(f"unknown `fmt` {fmt!r}; use one of {', '.join(FORMATS)}")
    rule = fail_on or "MODIFY"
    if rule not in FAIL_ON:
        raise InputError(f"unknown `fail_on` {rule!r}; use {', '.join(FAIL_ON[:-1])} or {FAIL_ON[-1]}")
    return rule


def render_result(result: ReviewResult, fmt: str) -> str:
    return render(result, fmt)
