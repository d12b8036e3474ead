"""The `showcause` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from showcause.errors import EXIT_BAD_INPUT, ShowcauseError
from showcause.evidence.ledger import Ledger
from showcause.inputs import open_snapshot, tool_context
from showcause.tools.registry import all_tools, get_tool, tool_schemas, tools_markdown

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="A code-review judge that must show cause before it blocks a change.")
tools_app = typer.Typer(no_args_is_help=True, help="The read-only tools a judge uses (list, run).")
app.add_typer(tools_app, name="tools")

CaseOpt = Annotated[Path | None, typer.Option("--case", help="A repo case directory (base/ + patch.diff).")]
RepoOpt = Annotated[Path | None, typer.Option("--repo", help="A repository or directory.")]
DiffOpt = Annotated[Path | None, typer.Option("--diff", help="A patch applied to --repo to make head.")]
BaseOpt = Annotated[str | None, typer.Option("--base", help="Git ref of the base tree (with --repo).")]
HeadOpt = Annotated[str | None, typer.Option("--head", help="Git ref of the head tree (with --repo).")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="A TOML file overriding the sandbox policy.")]


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    typer.echo(f"showcause: error: {message}", err=True)
    raise typer.Exit(code)


@tools_app.command("list")
def tools_list(as_json: Annotated[bool, typer.Option("--json", help="Print the JSON schemas.")] = False,
               markdown: Annotated[bool, typer.Option("--markdown", help="Print docs/tools.md.")] = False) -> None:
    """List the tools and their arguments (generated from the tool registry)."""
    if as_json:
        typer.echo(json.dumps(tool_schemas(), indent=2))
        return
    if markdown:
        typer.echo(tools_markdown(), nl=False)
        return
    for schema in tool_schemas():
        props: dict[str, Any] = schema["input_schema"].get("properties", {})
        required = set(schema["input_schema"].get("required", []))
        args = ", ".join(f"{k}{'' if k in required else '?'}" for k in props) or "no arguments"
        typer.echo(f"{schema['name']}({args})\n    {schema['description']}")


@tools_app.command("run")
def tools_run(
    tool: Annotated[str, typer.Argument(help="Tool name (see `showcause tools list`).")],
    args: Annotated[str, typer.Option("--args", help="Tool arguments as a JSON object.")] = "{}",
    case: CaseOpt = None, repo: RepoOpt = None, diff: DiffOpt = None, base: BaseOpt = None, head: HeadOpt = None,
    config: ConfigOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ledger record as JSON.")] = False,
) -> None:
    """Run one tool on the head tree of a snapshot and print what a model would see."""
    if get_tool(tool) is None:
        _fail(f"unknown tool {tool!r}; known: {', '.join(t.name for t in all_tools())}")
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as exc:
        _fail(f"--args is not valid JSON: {exc.msg}")
        return
    try:
        with open_snapshot(case=case, repo=repo, diff=diff, base=base, head=head) as snap:
            call = Ledger(tool_context(snap, config)).call(tool, parsed)
    except ShowcauseError as exc:
        _fail(exc.message, exc.exit_code)
        return
    if as_json:
        typer.echo(json.dumps(call.to_json(), indent=2, ensure_ascii=False))
    else:
        typer.echo(call.output)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
