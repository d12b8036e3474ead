"""The review commands: `review`, `tools list|run`, `sandbox` and `modes`."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TextIO

import typer

from showcause import service
from showcause.cli.app import (
    BaseOpt,
    CaseOpt,
    ConfigOpt,
    DiffOpt,
    HeadOpt,
    IsolationOpt,
    PythonOpt,
    RepoOpt,
    app,
    fail,
    tools_app,
    write_output,
)
from showcause.cli.text import modes_text
from showcause.core.errors import (
    EXIT_INCONCLUSIVE,
    EXIT_STATUS,
    InputError,
    ProbeUnrunnable,
    SandboxUnavailable,
    ShowcauseError,
    exit_status,
)
from showcause.core.progress import reporting
from showcause.core.result import ReviewResult
from showcause.service import ChangeSource, ReviewOptions
from showcause.service.catalog import modes_json, modes_markdown, tool_schemas, tools_markdown, tools_text
from showcause.service.report import check_report_options
from showcause.service.toolcall import check_tool, parse_tool_args

__all__: list[str] = []   # commands register themselves on the app


@tools_app.command("list")
def tools_list(as_json: Annotated[bool, typer.Option("--json", help="Print the JSON schemas.")] = False,
               markdown: Annotated[bool, typer.Option("--markdown", help="Print the tool sections of "
                                                      "docs/tools.md.")] = False) -> None:
    """List the tools and their arguments (generated from the tool registry)."""
    if as_json:
        typer.echo(json.dumps(tool_schemas(), indent=2))
    elif markdown:
        typer.echo(tools_markdown(), nl=False)
    else:
        typer.echo(tools_text(), nl=False)


@tools_app.command("run")
def tools_run(
    tool: Annotated[str, typer.Argument(help="Tool name (see `showcause tools list`).")],
    args: Annotated[str, typer.Option("--args", help="Tool arguments as a JSON object.")] = "{}",
    case: CaseOpt = None, repo: RepoOpt = None, diff: DiffOpt = None, base: BaseOpt = None, head: HeadOpt = None,
    config: ConfigOpt = None, isolation: IsolationOpt = None, python: PythonOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ledger record as JSON.")] = False,
) -> None:
    """Run one tool on the head tree of a snapshot and print what a model would see.

    Exit 0 when the call ran (refused arguments included: `ok` is false), 2 bad input, 3 when the call could
    not run because no sandbox that hides the host works here (SANDBOX_UNAVAILABLE), or because the tests or
    the type checker could not run to any outcome (PROBE_UNRUNNABLE).
    """
    try:
        check_tool(tool)
        call = service.run_tool(ChangeSource(case=case, repo=repo, diff=diff, base=base, head=head), tool,
                                parse_tool_args(args), config=config, isolation=isolation,
                                python=python)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    if as_json:
        typer.echo(json.dumps(call.to_json(), indent=2, ensure_ascii=False))
    else:
        typer.echo(call.output)
    if call.error in (SandboxUnavailable.code, ProbeUnrunnable.code):
        raise typer.Exit(EXIT_STATUS[call.error])


@app.command("review")
def review(
    case: CaseOpt = None, repo: RepoOpt = None, diff: DiffOpt = None, base: BaseOpt = None, head: HeadOpt = None,
    config: ConfigOpt = None, isolation: IsolationOpt = None, python: PythonOpt = None,
    mode: Annotated[str | None, typer.Option("--mode", help="Review mode (see `showcause modes`); default "
                                             "mechanical, or evidence_gate with --model.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="provider:model, e.g. openai:gpt-5-mini, "
                                              "anthropic:…, ollama:qwen3:14b, scripted:FILE.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible server URL.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="json, markdown, sarif, github or text.")] = "text",
    output: Annotated[Path | None, typer.Option("--output", help="Write the report here instead of stdout.")] = None,
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="MODIFY (default; for --decision: never), "
                                                "WARNING or never.")] = None,
    task: Annotated[str | None, typer.Option("--task", help="What the change is for.")] = None,
    task_file: Annotated[Path | None, typer.Option("--task-file", help="Read the task from a file.")] = None,
    plan: Annotated[str | None, typer.Option("--plan", help="The author's plan or PR description.")] = None,
    decision: Annotated[Path | None, typer.Option("--decision", help="Review a decision (JSON file) instead of a "
                                                  "change: --mode blind_first (default) or proposal_first.")] = None,
    blindness_warn: Annotated[float | None, typer.Option("--blindness-warn", help="Blindness warning threshold "
                                                         "(default: the policy's blindness_warn, 0.15).")] = None,
    blindness_leak: Annotated[float | None, typer.Option("--blindness-leak", help="Blindness refusal threshold "
                                                         "for blind modes (default: the policy's blindness_leak, "
                                                         "0.5).")] = None,
    quorum: Annotated[Path | None, typer.Option("--quorum", help="--mode quorum: the quorum configuration (JSON, "
                                                "or TOML with \\[quorum]); else the \\[quorum] table of --config.")
                      ] = None,
) -> None:
    """Review a change. Exit 0 KEEP/WARNING, 1 MODIFY/REPLACE, 2 bad input, 3 INCONCLUSIVE.

    With --decision: exit 0 for any completed verdict, 1 only with --fail-on, 2 bad input, 3 failed review.
    """
    if decision is not None:
        if any(x is not None for x in (case, repo, diff, base, head, task, task_file, plan, python, quorum)):
            fail("--decision takes no --case, --repo, --diff, --base, --head, --task, --plan, --python or --quorum")
        if output is not None and not output.parent.is_dir():
            fail(f"--output directory {output.parent} does not exist")
        try:
            _result, text, code = service.review_decision(decision, mode=mode, model=model, base_url=base_url, fmt=fmt,
                                                  fail_on=fail_on, warn=blindness_warn, leak=blindness_leak,
                                                  config=config)
        except ShowcauseError as exc:
            fail(exc.message, exit_status(exc))
            return
        write_output(text, output)
        raise typer.Exit(code)
    try:
        rule = check_report_options(fmt, fail_on)
        if task_file is not None:
            task = _read_task(task_file)
        if output is not None and not output.parent.is_dir():
            raise InputError(f"--output directory {output.parent} does not exist")
        result = _reviewed(ChangeSource(case=case, repo=repo, diff=diff, base=base, head=head),
                           ReviewOptions(mode=mode, model=model, base_url=base_url, config=config,
                                         isolation=isolation, task=task, plan=plan, blindness_warn=blindness_warn,
                                         blindness_leak=blindness_leak, python=python, quorum=quorum))
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    write_output(service.render_result(result, fmt), output)
    raise typer.Exit(service.exit_code(result, rule))


def _reviewed(source: ChangeSource, options: ReviewOptions) -> ReviewResult:
    with reporting(terminal_progress()):
        return service.review_change(source, options)


def terminal_progress(stream: TextIO | None = None) -> Callable[[str], None] | None:
    """On a terminal, each step of a review (a tool call on a tree, started or done) as a line on stderr with
    the time since the review began; nothing when stderr is not a terminal (CI logs, pipes, files)."""
    out = stream if stream is not None else sys.stderr
    if not out.isatty():
        return None
    started = time.monotonic()

    def show(message: str) -> None:
        out.write(f"showcause [{time.monotonic() - started:6.1f} s] {message}\n")
        out.flush()

    return show


def _read_task(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read --task-file {path}: {exc}") from None


@app.command("sandbox")
def sandbox_status(
    isolation: IsolationOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the probes as JSON.")] = False,
) -> None:
    """Which isolation level a review gets here, and why a level does not work. Exit 0, or 3 without one."""
    try:
        doc, text = service.sandbox_status(isolation)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    typer.echo(json.dumps(doc, indent=2) if as_json else text)
    raise typer.Exit(EXIT_INCONCLUSIVE if doc.get("error") else 0)


@app.command("modes")
def modes(as_json: Annotated[bool, typer.Option("--json", help="Print every mode's spec as JSON.")] = False,
          markdown: Annotated[bool, typer.Option("--markdown", help="Print the table of docs/modes.md.")] = False,
          ) -> None:
    """List the review modes and what each declares (generated from the mode registry)."""
    if as_json:
        typer.echo(json.dumps(modes_json(), indent=2))
    elif markdown:
        typer.echo(modes_markdown(), nl=False)
    else:
        typer.echo(modes_text(), nl=False)
