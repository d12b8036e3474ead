"""`showcause cases prepare|verify`: the releases and environments real-world cases need, and every case label
checked mechanically."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from showcause.cli.app import cases_app, fail
from showcause.core.errors import ShowcauseError, exit_status
from showcause.service.hoststatus import require_sandbox
from showcause.service.prepare import prepare_case

__all__: list[str] = []   # commands register themselves on the app


@cases_app.command("prepare")
def cases_prepare(
    cases_dir: Annotated[Path, typer.Argument(help="A folder of repo cases, or one case.")],
) -> None:
    """Download the releases and build the environments real-world cases need, once, into the cache
    (reviews never download). One line per case; exit 2 when something cannot be had."""
    from showcause.bench.cases import find_cases

    try:
        paths = find_cases(cases_dir)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    failed = 0
    for path in paths:   # one case that cannot be had does not stop the others
        try:
            held = prepare_case(path)
        except ShowcauseError as exc:
            failed += 1
            typer.echo(f"FAIL {path.name:<40} {exc.message}")
            continue
        typer.echo(f"ok   {path.name:<40} {'; '.join(held) or 'holds its own trees'}")
    if failed:
        fail(f"{failed} of {len(paths)} case(s) could not be prepared")


@cases_app.command("verify")
def cases_verify(
    cases_dir: Annotated[Path, typer.Argument(help="A folder of repo cases or of decision cases, or one case.")],
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Cases verified in parallel.")] = 2,
) -> None:
    """Check every case label mechanically; one line per case, exit 1 on any failure, 3 without a sandbox.
    Decision cases (a folder of *.json files) are checked without a sandbox; a bad one is exit 2."""
    from concurrent.futures import ThreadPoolExecutor

    from showcause.bench.cases import find_cases
    from showcause.bench.decision_casefile import is_decision_case_dir
    from showcause.bench.verify import verify_case
    from showcause.cli.decision_cases import verify_decision_cases

    if is_decision_case_dir(cases_dir):
        verify_decision_cases(cases_dir)
    try:
        require_sandbox()   # labels are checked by running tests: never without a sandbox
        paths = find_cases(cases_dir)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    if not paths:
        fail(f"{cases_dir}: no cases (folders with case.json)")
    failed = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for verdict in pool.map(verify_case, paths):
            typer.echo(verdict.line())
            failed += not verdict.ok
    typer.echo(f"{len(paths) - failed} passed, {failed} failed")
    raise typer.Exit(1 if failed else 0)
