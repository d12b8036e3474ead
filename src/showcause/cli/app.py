"""The `showcause` application object, its shared options and how a command fails or writes a report."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

import typer

from showcause.core.errors import EXIT_BAD_INPUT, ShowcauseError, exit_status
from showcause.sandbox.lifecycle import forget_dir, track_dir
from showcause.sandbox.runner import process_slots

__all__ = ["BaseOpt", "CaseOpt", "ConfigOpt", "DiffOpt", "HeadOpt", "IsolationOpt", "PythonOpt", "RepoOpt", "app",
           "cases_app", "fail", "tools_app", "write_output"]

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="A code-review judge that must show cause before it blocks a change.")
tools_app = typer.Typer(no_args_is_help=True, help="The read-only tools a judge uses (list, run).")
app.add_typer(tools_app, name="tools")
cases_app = typer.Typer(no_args_is_help=True, help="Repo cases: verify their labels.")
app.add_typer(cases_app, name="cases")

CaseOpt = Annotated[Path | None, typer.Option("--case", help="A repo case directory (base/ + patch.diff).")]
RepoOpt = Annotated[Path | None, typer.Option("--repo", help="A repository or directory.")]
DiffOpt = Annotated[Path | None, typer.Option("--diff", help="A patch applied to --repo to make head.")]
BaseOpt = Annotated[str | None, typer.Option("--base", help="Git ref of the base tree (with --repo); alone, the "
                                             "working tree is reviewed against it.")]
HeadOpt = Annotated[str | None, typer.Option("--head", help="Git ref of the head tree (with --repo and --base).")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="A TOML file overriding the sandbox policy.")]
PythonOpt = Annotated[Path | None, typer.Option(
    "--python", help="The project's interpreter or virtualenv for tests and pyright (default: the active "
                     "VIRTUAL_ENV, else the repository's .venv or venv, else showcause's own).")]
IsolationOpt = Annotated[str | None, typer.Option(
    "--isolation", help="auto (default: bubblewrap, else unshare; both hide the host), bwrap, unshare, or none "
                        "(no isolation: only for code you trust; every report then says so).")]


# Errors below the command line name what they are about by the library's field (`ChangeSource.case`,
# `fmt`, `ReviewOptions.quorum` ...) in backticks; on the command line each is its option.
FIELD_FLAGS = {
    "case": "--case", "repo": "--repo", "diff": "--diff", "base": "--base", "head": "--head", "mode": "--mode",
    "model": "--model", "config": "--config", "quorum": "--quorum", "fmt": "--format", "fail_on": "--fail-on",
    "decision": "--decision", "root": "--root", "sarif": "--sarif", "no_comment": "--no-comment",
}
_FIELD = re.compile(r"`([a-z_]+)`")   # a backticked word; only FIELD_FLAGS' own are replaced


def as_flags(message: str) -> str:
    """``message`` in the command line's words: each `field` it names becomes that field's option."""
    return _FIELD.sub(lambda m: FIELD_FLAGS.get(m.group(1), m.group(0)), message)


def fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    typer.echo(f"showcause: error: {as_flags(message)}", err=True)
    raise typer.Exit(code)


@app.callback()
def _environment() -> None:
    # Host settings from the environment are checked before any command starts work.
    try:
        process_slots()
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))


def write_output(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text, nl=False)
        return
    # Write beside the target and rename: a failed run never leaves a half-written report.
    tmp = output.with_name(f".{output.name}.showcause-tmp")
    track_dir(tmp)   # a signal mid-write removes it: nothing half-written is left
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, output)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        fail(f"cannot write {output}: {exc.strerror}")
    finally:
        forget_dir(tmp)
