"""The quorum commands: `ask PROMPT --quorum FILE` (one weighted-quorum consultation) and `peers`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from showcause.cli.app import ConfigOpt, app, fail
from showcause.core.errors import EXIT_INCONCLUSIVE, InputError, ShowcauseError, exit_status
from showcause.core.jsonsafe import MAX_DECISION_BYTES, loads
from showcause.service.quorum import ask_quorum, list_peers, load_quorum, parse_history, render_quorum_result

__all__: list[str] = []   # commands register themselves on the app

QuorumOpt = Annotated[Path | None, typer.Option(
    "--quorum", help="The quorum configuration: the predecessor's JSON file, or a TOML file's \\[quorum] table.")]


def _load(quorum: Path | None, config: Path | None) -> Any:
    loaded = load_quorum(quorum, config=config) if quorum is not None \
        else load_quorum(config=config)
    for warning in loaded.config.warnings:
        typer.echo(f"showcause: warning: {warning}", err=True)
    return loaded


def _history(path: Path | None) -> Any:
    if path is None:
        return ()
    try:
        data = loads(path.read_text(encoding="utf-8"), max_bytes=MAX_DECISION_BYTES)
    except OSError as exc:
        raise InputError(f"--history {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise InputError(f"--history {path}: not valid JSON ({exc})") from None
    return parse_history(data)


@app.command("ask")
def ask(
    prompt: Annotated[str, typer.Argument(help="The question for the quorum.")],
    quorum: QuorumOpt = None,
    config: ConfigOpt = None,
    tier: Annotated[int | None, typer.Option("--tier", help="The highest tier to escalate to (its threshold is the "
                                             "required weight); default the highest configured.")] = None,
    caller_answer: Annotated[str | None, typer.Option("--caller-answer", help="Your own answer: never shown to a "
                                                      "peer, rated by the arbiter (callerAgreement).")] = None,
    caller_source: Annotated[str | None, typer.Option("--caller-source", help="The configured source you are: "
                                                      "skipped for this request.")] = None,
    history: Annotated[Path | None, typer.Option("--history", help='A JSON file: [{"role": "user"|"model", '
                                                 '"content": "…"}, …], sent to the peers.')] = None,
    fmt: Annotated[str, typer.Option("--format", help="json or text.")] = "text",
) -> None:
    """Ask a weighted quorum of models. Exit 0 with a result (an unmet quorum included), 2 bad input or
    configuration, 3 when no source answered."""
    if fmt not in ("json", "text"):
        fail(f"--format must be json or text, not {fmt!r}")
    try:
        loaded = _load(quorum, config)
        result = ask_quorum(loaded, prompt, history=_history(history), tier=tier,
                                    caller_answer=caller_answer, caller_source=caller_source)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    for warning in result.warnings:
        typer.echo(f"showcause: warning: {warning}", err=True)
    typer.echo(render_quorum_result(result, fmt), nl=False)
    if not result.answered:
        raise typer.Exit(EXIT_INCONCLUSIVE)


@app.command("peers")
def peers(quorum: QuorumOpt = None, config: ConfigOpt = None,
          as_json: Annotated[bool, typer.Option("--json", help="Print list_peers' JSON.")] = False) -> None:
    """List the quorum's sources and whether each one's credential can be resolved. Exit 0, or 2."""
    try:
        listing = list_peers(_load(quorum, config))
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
        return
    for s in listing["sources"]:
        state = "available" if s["available"] else "unavailable (no key)"
        typer.echo(f"{s['name']:<20} tier {s['tier']}  weight {s['weight']}  {s['apiType']}:{s['model']}  {state}")
