"""The telemetry commands: `outcome REVIEW_ID` (record what came of a review) and `outcomes` (the summary)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from showcause.cli.app import ConfigOpt, app, fail
from showcause.cli.text import outcomes_text
from showcause.core.errors import InputError, ShowcauseError, exit_status
from showcause.service.outcomes import outcomes_summary, record_outcome

__all__: list[str] = []   # commands register themselves on the app

_BOOL = {"true": True, "false": False}


def _flag(name: str, value: str) -> bool:
    parsed = _BOOL.get(value.strip().lower())
    if parsed is None:
        raise InputError(f"{name} takes true or false, not {value!r}")
    return parsed


@app.command("outcome")
def outcome(
    review_id: Annotated[str, typer.Argument(help="The review's id (its meta.review_id).")],
    accepted: Annotated[str, typer.Option("--accepted", help="true|false: the review was acted on.")],
    rework: Annotated[str, typer.Option("--rework", help="true|false: the work needed redoing later.")],
    useful: Annotated[str, typer.Option("--useful", help="true|false: the review helped.")],
    config: ConfigOpt = None,
) -> None:
    """Record what came of a logged review in the telemetry log. Exit 0, or 2 for bad input (an unknown review id,
    telemetry off)."""
    try:
        record = record_outcome(review_id, _flag("--accepted", accepted), _flag("--rework", rework),
                                        _flag("--useful", useful), config=config)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    typer.echo(json.dumps(record))


@app.command("outcomes")
def outcomes(
    config: ConfigOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Summarise the telemetry log: reviews, outcomes, cost per useful review and per prevented bad change."""
    try:
        summary = outcomes_summary(config)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    typer.echo(json.dumps(summary, indent=2) if as_json else outcomes_text(summary), nl=as_json)
