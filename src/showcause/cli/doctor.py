"""`showcause doctor` (what this host gives a review) and `showcause setup` (the toolchain, once)."""

from __future__ import annotations

from typing import Annotated

import typer

from showcause.cli.app import app, fail
from showcause.core.errors import EXIT_INCONCLUSIVE, ShowcauseError, exit_status
from showcause.service.doctor import doctor_checks
from showcause.service.setup import setup_toolchain

__all__: list[str] = []   # commands register themselves on the app


@app.command("doctor")
def doctor() -> None:
    """One screen: isolation, node/npm, pyright, tsc, pytest and the cache, each with its fix when missing.

    Exit 0 when a review can run here, 3 when not (no isolation that hides the host).
    """
    checks = doctor_checks()
    for c in checks:
        typer.echo(f"{'ok ' if c.ok else 'MISSING' if c.required else 'no '} {c.name:10} {c.detail}")
        if not c.ok and c.fix:
            typer.echo(f"{'':12}fix: {c.fix}")
    blocked = [c.name for c in checks if c.required and not c.ok]
    typer.echo(f"reviews cannot run here: {', '.join(blocked)} missing" if blocked else "a review can run here")
    raise typer.Exit(EXIT_INCONCLUSIVE if blocked else 0)


@app.command("setup")
def setup(
    force: Annotated[bool, typer.Option("--force", help="Reinstall even when the pinned toolchain is there.")] = False,
) -> None:
    """Install the pinned toolchain (TypeScript, and node for pyright) with npm into the cache, once, and
    record the MCP server's opening answers so an agent's first `showcause mcp` answers at once.

    Idempotent; exit 3 with the fix when npm is missing or the registry cannot be reached.
    """
    from showcause.mcpserver.prewarm import record_opening

    try:
        typer.echo(setup_toolchain(force))
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
    typer.echo(record_opening())
