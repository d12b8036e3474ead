"""`showcause bench ingest SHEET KEY` and `showcause bench compare DIR…` (the decision bench's human review
and side-by-side view)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from showcause.cli.app import fail
from showcause.cli.bench import bench_app
from showcause.core.errors import ShowcauseError, exit_status

__all__: list[str] = []   # commands register themselves on the app


@bench_app.command("ingest")
def ingest(
    sheet: Annotated[Path, typer.Argument(help="A filled review-sheet.csv (its `hit` column: 1, 0 or empty).")],
    key: Annotated[Path, typer.Argument(help="The sheet-key.json written beside it.")],
) -> None:
    """Required-observation coverage per mode from a filled review sheet; exit 2 on a sheet the key does
    not match."""
    from showcause.bench.review_sheet import coverage_text, ingest_sheet

    try:
        coverage = ingest_sheet(sheet, key)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    typer.echo(coverage_text(coverage), nl=False)


@bench_app.command("compare")
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Decision-bench output folders (each with results.json).")],
) -> None:
    """Several decision-bench runs side by side (rates, intervals, question labels); names no winner."""
    from showcause.bench.compare import compare_runs

    try:
        text = compare_runs(runs)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    typer.echo(text, nl=False)
