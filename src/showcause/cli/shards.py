"""`showcause bench merge`: the shards of one bench joined into the run they slice."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from showcause.cli.app import fail
from showcause.cli.bench import bench_app, render_outputs
from showcause.core.errors import ShowcauseError, exit_status

__all__: list[str] = []   # commands register themselves on the app


@bench_app.command("merge")
def bench_merge(
    shards: Annotated[list[Path], typer.Argument(metavar="SHARD_DIR...",
                                                 help="The --out folders of `showcause bench --shard I/N` runs.")],
    out: Annotated[Path, typer.Option("--out", help="Output folder (results.json, report.md, PNG).")] = Path(
        "bench-out"),
) -> None:
    """Merge shard outputs into one results.json, report.md and plot, as one unsharded run writes them.

    Exit 0 merged, 2 when the folders are not the complete, non-overlapping shards of one plan, 3 when a
    shard stopped at --max-cost.
    """
    from showcause.bench.merge import merge_shards
    try:
        results = merge_shards(shards, out)
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    render_outputs(results, " ".join(["showcause bench merge", *map(str, shards), "--out", str(out)]), out)
