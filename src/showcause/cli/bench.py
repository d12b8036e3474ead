"""`showcause bench`: benchmark judges on labelled cases (the lab, installed with the `bench` extra:
cli/lab.py registers it)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from showcause.cli.app import ConfigOpt, IsolationOpt, app, fail
from showcause.core.errors import ShowcauseError, exit_status

if TYPE_CHECKING:
    from showcause.bench.runner import BenchConfig

__all__ = ["bench_app", "render_outputs"]   # commands register themselves on the app


class _BenchGroup(TyperGroup):
    """`showcause bench DIR …` runs a bench; `bench ingest` and `bench compare` are its other commands."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:   # Any: typer vendors its click
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["run", *args]
        return super().parse_args(ctx, args)


bench_app = typer.Typer(cls=_BenchGroup, help="Benchmark judges on labelled cases (`bench DIR`), merge the "
                        "shards of one (`bench merge`), read a filled review sheet back (`bench ingest`), put runs "
                        "side by side (`bench compare`).")
app.add_typer(bench_app, name="bench")


# The help of each option of `showcause bench` (one table: the signature below stays one line per option).
_HELP = {
    "--modes": "Comma-separated review modes.",
    "--model": "provider:model for the model-driven modes; repeat for several models.",
    "--base-url": "An OpenAI-compatible server URL.",
    "--runs": "Runs per case, mode and model.",
    "--concurrency": "Reviews in parallel.",
    "--out": "Output folder (results.json, report.md, PNG).",
    "--resume": "Continue a run in --out (same cases, modes, models, config, budgets and prompts).",
    "--retries": "Retries of a review after a transient failure.",
    "--retry-backoff": "Seconds before the first retry (doubling; tripled after RATE_LIMITED).",
    "--max-cost": "Hard stop in USD (exit 3 when reached; earlier sessions' spend counts).",
    "--unpriced-reserve": "USD reserved per review of a model with no known price.",
    "--max-rpm": "Model calls per minute, across all workers (evenly spaced).",
    "--baseline": "Mode the others are compared with (paired cluster bootstrap).",
    "--seed": "Seed of the bootstrap, of the decision modes' order per case and run, and of the review sheet's item "
              "ids.",
    "--rules": "Pre-registered questions and labels (TOML); decision cases default to bench_rules/decision.toml.",
    "--shard": "I/N: run only slice I of N of the planned records (by record identity); join them with `bench "
               "merge`.",
    "--executor": "local (default), dask://HOST:PORT (a Dask scheduler) or dask-local:N (a local cluster of N "
                  "workers).",
    "--record-timeout": "Seconds per record on a Dask worker; its process group is killed after.",
    "--write-weights": "Also write each model's measured block precision, as quorum weights, to this JSON file.",
    "--quorum": "--modes quorum: the quorum configuration (else the \\[quorum] table of --config); a single-model "
                "mode beside it runs once per source when no --model is given.",
}


def _opt(flag: str) -> Any:   # Any: typer.Option is typed as returning the default's type
    return typer.Option(flag, help=_HELP[flag])


@bench_app.command("run")
def bench(
    cases_dir: Annotated[Path, typer.Argument(help="A folder of repo cases, or of decision cases (*.json).")],
    modes_opt: Annotated[str, _opt("--modes")] = "mechanical",
    model: Annotated[list[str] | None, _opt("--model")] = None,
    base_url: Annotated[str | None, _opt("--base-url")] = None,
    runs: Annotated[int, _opt("--runs")] = 1,
    concurrency: Annotated[int, _opt("--concurrency")] = 2,
    out: Annotated[Path, _opt("--out")] = Path("bench-out"),
    resume: Annotated[bool, _opt("--resume")] = False,
    config: ConfigOpt = None, isolation: IsolationOpt = None,
    retries: Annotated[int, _opt("--retries")] = 2,
    retry_backoff: Annotated[float, _opt("--retry-backoff")] = 5.0,
    max_cost: Annotated[float | None, _opt("--max-cost")] = None,
    unpriced_reserve: Annotated[float, _opt("--unpriced-reserve")] = 0.50,
    max_rpm: Annotated[float | None, _opt("--max-rpm")] = None,
    baseline: Annotated[str | None, _opt("--baseline")] = None,
    seed: Annotated[int, _opt("--seed")] = 42,
    rules: Annotated[Path | None, _opt("--rules")] = None,
    shard: Annotated[str | None, _opt("--shard")] = None,
    executor: Annotated[str, _opt("--executor")] = "local",
    record_timeout: Annotated[float | None, _opt("--record-timeout")] = None,
    write_weights: Annotated[Path | None, _opt("--write-weights")] = None,
    quorum: Annotated[Path | None, _opt("--quorum")] = None,
) -> None:
    """Benchmark judges on labelled cases: results.json, report.md and recall_fi.png in --out.

    Exit 0 when every planned review ran (failed reviews included), 2 bad input or a refused --resume,
    3 stopped at --max-cost (partial results written; raise the limit and --resume).
    `showcause bench merge SHARD_DIR... --out DIR` joins the outputs of `--shard` runs.
    """
    from showcause.bench.runner import BenchConfig
    from showcause.bench.shard import parse_shard

    modes_list = tuple(m.strip() for m in modes_opt.split(",") if m.strip())
    models = tuple(m.strip() for m in model or [] if m.strip())
    try:
        cfg = BenchConfig(cases_dir, modes_list, runs, concurrency, out, resume, config, models=models,
                          base_url=base_url, retries=retries, backoff_s=retry_backoff, max_cost=max_cost,
                          max_rpm=max_rpm, unpriced_reserve=unpriced_reserve, baseline=baseline, seed=seed,
                          isolation=isolation, rules=rules, shard=parse_shard(shard), executor=executor,
                          record_timeout=record_timeout, quorum=quorum)
        results = _run_with_bar(cfg)
        if write_weights is not None:
            from showcause.bench.weights import write_weights as write

            write(write_weights, results["records"], results["truth"])
    except ShowcauseError as exc:
        fail(exc.message, exit_status(exc))
        return
    render_outputs(results, _command_line(cfg), out)


def _run_with_bar(cfg: BenchConfig) -> dict[str, Any]:
    """The bench, with a progress bar on stderr; the plot library loads on a worker that has nothing left."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from showcause.bench.report import import_plotting
    from showcause.bench.runner import run_bench

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True, refresh_per_second=2) as bar:
        task = bar.add_task("reviews", total=None)

        def tick(done: int, total: int, record: dict[str, Any]) -> None:
            bar.update(task, completed=done, total=total, description=f"{record['case']} {record['verdict']}")
            if total - done == cfg.concurrency - 1:   # a worker has nothing left: load the plot library on it
                threading.Thread(target=import_plotting, daemon=True).start()

        return run_bench(cfg, tick)


def _command_line(cfg: BenchConfig) -> str:
    """The command a report says made it (a base URL is not shown: it can carry a key)."""
    def opt(flag: str, value: object) -> list[str]:
        return [f"{flag} {value}"] if value else []

    shard = f"{cfg.shard[0]}/{cfg.shard[1]}" if cfg.shard else None
    parts = ["showcause bench", str(cfg.cases_dir), "--modes", ",".join(cfg.modes),
             *(f"--model {m}" for m in cfg.models), *opt("--quorum", cfg.quorum),
             *(["--base-url URL"] if cfg.base_url else []), "--runs", str(cfg.runs),
             "--concurrency", str(cfg.concurrency), "--retries", str(cfg.retries),
             *([f"--max-cost {cfg.max_cost:g}"] if cfg.max_cost is not None else []),
             *([f"--max-rpm {cfg.max_rpm:g}"] if cfg.max_rpm else []), *opt("--baseline", cfg.baseline),
             "--seed", str(cfg.seed), *opt("--rules", cfg.rules), *opt("--shard", shard),
             *([f"--executor {cfg.executor}"] if cfg.executor != "local" else []), "--out", str(cfg.out)]
    return " ".join(parts)


def render_outputs(results: dict[str, Any], command: str, out: Path) -> None:
    """report.md (and, for repo cases, the plot) in `out`, one line per arm and per question, and exit 3
    after a --max-cost stop."""
    from showcause.bench.runner import EXIT_STOPPED

    _write_outputs(results, command, out)
    typer.echo(f"wall time {results['wall_seconds']} s; report: {out / 'report.md'}")
    stopped = results["stopped"]
    if stopped:
        typer.echo(f"showcause: stopped at --max-cost ${stopped['max_cost_usd']:g}: spent ${stopped['spent_usd']:.4f}, "
                   f"the next review ({stopped['next']}) reserves ${stopped['next_reserve_usd']:.4f}; "
                   f"{len(results['not_run'])} review(s) not run. Raise --max-cost and rerun with --resume.", err=True)
        raise typer.Exit(EXIT_STOPPED)


def _write_outputs(results: dict[str, Any], command: str, out: Path) -> None:
    """report.md (and, for repo cases, the plot), then one line per arm and per question."""
    from showcause.bench.decision_report import render_decision_report, summary_lines
    from showcause.bench.report import render_report, write_plot

    if results["kind"] == "decision":
        (out / "report.md").write_text(render_decision_report(results, command), encoding="utf-8")
        for line in summary_lines(results):
            typer.echo(line)
        return
    (out / "report.md").write_text(render_report(results, command), encoding="utf-8")
    write_plot(results, out / "recall_fi.png")
    for label, m in results["metrics"].items():
        g = m["gated"]
        recall = ", ".join(f"{k} {v['k']}/{v['n']}" for k, v in g["recall"].items())
        fi = g["false_intervention"]
        typer.echo(f"{label}: recall {recall}; false interventions {fi['k']}/{fi['n']}; failed {m['failed']}"
                   + (f"; not run {m['not_run']}" if m["not_run"] else ""))
    for q in results.get("questions", []):
        typer.echo(f"{q['id']} {q['a']} vs {q['b']} ({q['metric']}): {q['label']}")
