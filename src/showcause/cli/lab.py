"""The lab's commands: `showcause bench` (run, merge, ingest, compare). They need the `bench` extra
(matplotlib for the report's plot, dask for a cluster); `pip install showcause` leaves it out, and then `bench`
says how to install it (exit 2). Registered through the entry point group `showcause.commands` (pyproject.toml),
as a plugin's command family is."""

from __future__ import annotations

from importlib.util import find_spec
from typing import Annotated

import typer

from showcause.cli.app import fail
from showcause.core.errors import EXIT_BAD_INPUT

__all__ = ["EXTRA_HINT", "register"]

# What the extra brings that the lab imports; a missing one means the extra is not installed.
_NEEDS = ("matplotlib",)
EXTRA_HINT = "pip install 'showcause[bench]'"


def register(app: typer.Typer) -> None:
    """Add the lab's commands to `app`, or, without the extra, a `bench` that says how to install it."""
    missing = [name for name in _NEEDS if find_spec(name) is None]
    if not missing:
        from showcause.cli import bench as _bench  # noqa: F401   (each module registers its commands)
        from showcause.cli import bench_decision as _bench_decision  # noqa: F401
        from showcause.cli import shards as _shards  # noqa: F401
        return

    @app.command("bench", context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
                 help=f"Benchmark judges on labelled cases: needs the bench extra ({EXTRA_HINT}).")
    def bench(args: Annotated[list[str] | None, typer.Argument(hidden=True)] = None) -> None:
        fail(f"showcause bench needs the bench extra ({', '.join(missing)} not installed): {EXTRA_HINT}",
             EXIT_BAD_INPUT)
