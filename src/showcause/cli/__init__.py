"""The `showcause` command line: the app (cli/app.py) and its commands, one module per family.

The commands load on first use of `app` (PEP 562) or in `main`, after the MCP stdio relay has started: an
agent's `showcause mcp` answers its opening requests before typer and the SDK are imported.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from showcause.core.errors import Interrupted, exit_status
from showcause.core.hostproc import sanitize_process_path

if TYPE_CHECKING:
    from showcause.cli.app import app

__all__ = ["app", "main"]


def _commands() -> Any:
    """The app with every command registered (each module registers its own on import)."""
    from showcause.cli import cases as _cases  # noqa: F401
    from showcause.cli import ci as _ci  # noqa: F401
    from showcause.cli import doctor as _doctor  # noqa: F401
    from showcause.cli import mcp as _mcp  # noqa: F401
    from showcause.cli import outcomes as _outcomes  # noqa: F401
    from showcause.cli import quorum as _quorum  # noqa: F401
    from showcause.cli import review as _review  # noqa: F401
    from showcause.cli.app import app as typer_app
    from showcause.cli.plugins import add_commands

    add_commands(typer_app)   # the lab's `bench` and any plugin's commands (entry points: cli/plugins.py)

    # Importing cli/app.py bound the package's `app` to that module; the public name means the Typer app.
    globals()["app"] = typer_app
    return typer_app


def __getattr__(name: str) -> Any:
    if name == "app":
        return _commands()
    raise AttributeError(f"module 'showcause.cli' has no attribute {name!r}")


def _interrupted(signum: int) -> None:
    # Every sandboxed process is already dead (the handler killed them); leave no temporary tree behind
    # and do not wait for worker threads: a signal ends the run within moments.
    from showcause.sandbox.lifecycle import remove_tracked_dirs

    remove_tracked_dirs()
    print(f"showcause: interrupted by signal {signum}", file=sys.stderr)
    sys.stdout.flush()
    os._exit(exit_status(Interrupted(signum)))


def _internal_error(exc: Exception) -> None:
    # The last resort: one line and exit 3 (a failed run, never read as a block); the traceback only on request.
    import traceback

    from showcause.sandbox.lifecycle import remove_tracked_dirs

    remove_tracked_dirs()
    debug = os.environ.get("SHOWCAUSE_DEBUG", "") not in ("", "0")
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
    detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
    hint = "" if debug else " (set SHOWCAUSE_DEBUG=1 to print the traceback)"
    print(f"showcause: internal error: {detail}{hint}", file=sys.stderr)
    sys.exit(exit_status(exc))


def main() -> None:
    # Run from inside a checkout, a relative PATH entry ("", ".", node_modules/.bin) names the checkout's
    # programs: no lookup of this process may see one, whichever module makes it.
    sanitize_process_path()
    from showcause.mcpserver import relay

    if relay.wants_relay(sys.argv[1:]):
        relay.start(sys.argv[1:])
    import typer

    from showcause.sandbox.lifecycle import install_handlers

    install_handlers()
    try:
        _commands()()
    except Interrupted as exc:
        _interrupted(exc.signum)
    except KeyboardInterrupt:
        _interrupted(2)
    except typer.Exit as exc:   # click normally turns it into SystemExit; keep its code either way
        sys.exit(exc.exit_code)
    except Exception as exc:    # SystemExit is no Exception: usage errors and verdict codes pass untouched
        _internal_error(exc)
