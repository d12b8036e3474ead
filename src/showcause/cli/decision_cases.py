"""`cases verify` over a folder of decision cases: no sandbox, nothing runs; the file is the whole label."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import typer

from showcause.bench.decision_casefile import case_problems, find_decision_cases, load_decision_case
from showcause.cli.app import fail
from showcause.core.errors import EXIT_BAD_INPUT, ShowcauseError

__all__ = ["verify_decision_cases"]


def _verdict(path: Path) -> tuple[bool, str]:
    """(sound, detail): the case's status when it is sound, else every problem found, in one line."""
    try:
        case = load_decision_case(path)
    except ShowcauseError as exc:
        return False, exc.message
    problems = case_problems(case)
    if problems:
        return False, "; ".join(problems)
    return True, case.doc.truth.status + (" (tempting)" if case.tempting else "")


def verify_decision_cases(root: Path) -> NoReturn:
    """One line per case; exit 0 when all are sound, 2 (bad input) when any is not."""
    paths = find_decision_cases(root)
    if not paths:
        fail(f"{root}: no decision cases (*.json files)")
    failed = 0
    for path in paths:
        ok, detail = _verdict(path)
        failed += not ok
        typer.echo(f"{'ok  ' if ok else 'FAIL'} {path.stem:<40} {detail}")
    typer.echo(f"{len(paths) - failed} passed, {failed} failed")
    raise typer.Exit(EXIT_BAD_INPUT if failed else 0)
