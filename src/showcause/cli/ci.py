"""The CI commands: `ci github` (the GitHub Action's one step)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from showcause.cli.app import ConfigOpt, IsolationOpt, PythonOpt, RepoOpt, app, fail
from showcause.core.errors import ShowcauseError, exit_status

__all__: list[str] = []   # commands register themselves on the app

SarifOpt = Annotated[Path, typer.Option("--sarif", help="Where to write SARIF (category showcause).")]

ci_app = typer.Typer(no_args_is_help=True, help="Review a change inside a CI job and report it there.")
app.add_typer(ci_app, name="ci")


@ci_app.command("github")
def github(
    mode: Annotated[str | None, typer.Option("--mode", help="Review mode (see `showcause modes`).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="provider:model; none: the mechanical "
                                              "judge.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible server URL.")] = None,
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="MODIFY (default), WARNING or never.")] = None,
    config: ConfigOpt = None, python: PythonOpt = None, isolation: IsolationOpt = None, repo: RepoOpt = None,
    base: Annotated[str | None, typer.Option("--base", help="The base commit or ref (default: where the pull "
                                             "request left its base branch; a merge group's base).")] = None,
    comment: Annotated[bool, typer.Option("--comment/--no-comment", help="Keep one sticky comment on the pull "
                                          "request up to date.")] = True,
    sarif: SarifOpt = Path("showcause.sarif"),
    no_sarif: Annotated[bool, typer.Option("--no-sarif", help="Write no SARIF.")] = False,
    annotations: Annotated[bool, typer.Option("--annotations/--no-annotations", help="Print workflow "
                                              "annotations (at most 10 per level).")] = True,
) -> None:
    """Review this GitHub Actions job's pull request or merge group, and report it there.

    SARIF, one sticky comment, the job summary, annotations and the outputs verdict, exit-code, sarif-file.

    Reads the job's GITHUB_* variables (docs/ci.md lists them).

    Exit 0 KEEP/WARNING, 1 MODIFY/REPLACE, 2 bad input or environment, 3 INCONCLUSIVE.
    """
    # Loaded here: httpx and the GitHub client cost every other command's start nothing.
    from showcause.ci import GithubCiOptions, run_github

    options = GithubCiOptions(mode=mode, model=model, base_url=base_url, fail_on=fail_on, config=config,
                              python=python, isolation=isolation, comment=comment,
                              sarif=None if no_sarif else sarif, annotations=annotations, repo=repo, base=base)
    try:
        code = run_github(options, emit=typer.echo)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    raise typer.Exit(code)
