"""The `showcause` command line."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
from pathlib import Path
from typing import Annotated, Any

import typer

from showcause import service
from showcause.core.errors import (
    EXIT_BAD_INPUT,
    EXIT_INCONCLUSIVE,
    EXIT_STATUS,
    InputError,
    Interrupted,
    ProbeUnrunnable,
    SandboxUnavailable,
    ShowcauseError,
    exit_status,
)
from showcause.core.hostproc import sanitize_process_path
from showcause.sandbox.lifecycle import forget_dir, install_handlers, remove_tracked_dirs, track_dir
from showcause.sandbox.runner import process_slots
from showcause.service import ChangeSource, ReviewOptions

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="A code-review judge that must show cause before it blocks a change.")
tools_app = typer.Typer(no_args_is_help=True, help="The read-only tools a judge uses (list, run).")
app.add_typer(tools_app, name="tools")
cases_app = typer.Typer(no_args_is_help=True, help="Repo cases: verify their labels.")
app.add_typer(cases_app, name="cases")

CaseOpt = Annotated[Path | None, typer.Option("--case", help="A repo case directory (base/ + patch.diff).")]
RepoOpt = Annotated[Path | None, typer.Option("--repo", help="A repository or directory.")]
DiffOpt = Annotated[Path | None, typer.Option("--diff", help="A patch applied to --repo to make head.")]
BaseOpt = Annotated[str | None, typer.Option("--base", help="Git ref of the base tree (with --repo).")]
HeadOpt = Annotated[str | None, typer.Option("--head", help="Git ref of the head tree (with --repo).")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="A TOML file overriding the sandbox policy.")]
PythonOpt = Annotated[Path | None, typer.Option(
    "--python", help="The project's interpreter or virtualenv for tests and pyright (default: the active "
                     "VIRTUAL_ENV, else the repository's .venv or venv, else showcause's own).")]
IsolationOpt = Annotated[str | None, typer.Option(
    "--isolation", help="auto (default: bubblewrap, else unshare; both hide the host), bwrap, unshare, or none "
                        "(no isolation: only for code you trust; every report then says so).")]


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    typer.echo(f"showcause: error: {message}", err=True)
    raise typer.Exit(code)


@app.callback()
def _environment() -> None:
    # Host settings from the environment are checked before any command starts work.
    try:
        process_slots()
    except ShowcauseError as exc:
        _fail(exc.message, exit_status(exc))


@tools_app.command("list")
def tools_list(as_json: Annotated[bool, typer.Option("--json", help="Print the JSON schemas.")] = False,
               markdown: Annotated[bool, typer.Option("--markdown", help="Print the tool sections of "
                                                      "docs/tools.md.")] = False) -> None:
    """List the tools and their arguments (generated from the tool registry)."""
    if as_json:
        typer.echo(json.dumps(service.tool_schemas(), indent=2))
    elif markdown:
        typer.echo(service.tools_markdown(), nl=False)
    else:
        typer.echo(service.tools_text(), nl=False)


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
        service.check_tool(tool)
        call = service.run_tool(ChangeSource(case=case, repo=repo, diff=diff, base=base, head=head), tool,
                                service.parse_tool_args(args), config=config, isolation=isolation,
                                python=python)
    except ShowcauseError as exc:
        _fail(exc.message, exit_status(exc))
        return
    if as_json:
        typer.echo(json.dumps(call.to_json(), indent=2, ensure_ascii=False))
    else:
        typer.echo(call.output)
    if call.error in (SandboxUnavailable.code, ProbeUnrunnable.code):
        raise typer.Exit(EXIT_STATUS[call.error])


def _write_output(text: str, output: Path | None) -> None:
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
        _fail(f"cannot write {output}: {exc.strerror}")
    finally:
        forget_dir(tmp)


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
) -> None:
    """Review a change. Exit 0 KEEP/WARNING, 1 MODIFY/REPLACE, 2 bad input, 3 INCONCLUSIVE.

    With --decision: exit 0 for any completed verdict, 1 only with --fail-on, 2 bad input, 3 failed review.
    """
    if decision is not None:
        if any(x is not None for x in (case, repo, diff, base, head, task, task_file, plan, python)):
            _fail("--decision takes no --case, --repo, --diff, --base, --head, --task, --plan or --python")
        if output is not None and not output.parent.is_dir():
            _fail(f"--output directory {output.parent} does not exist")
        try:
            _result, text, code = service.review_decision(decision, mode=mode, model=model, base_url=base_url, fmt=fmt,
                                                  fail_on=fail_on, warn=blindness_warn, leak=blindness_leak,
                                                  config=config)
        except ShowcauseError as exc:
            _fail(exc.message, exit_status(exc))
            return
        _write_output(text, output)
        raise typer.Exit(code)
    try:
        rule = service.check_report_options(fmt, fail_on)
        if task_file is not None:
            task = _read_task(task_file)
        if output is not None and not output.parent.is_dir():
            raise InputError(f"--output directory {output.parent} does not exist")
        result = service.review_change(
            ChangeSource(case=case, repo=repo, diff=diff, base=base, head=head),
            ReviewOptions(mode=mode, model=model, base_url=base_url, config=config, isolation=isolation, task=task,
                          plan=plan, blindness_warn=blindness_warn, blindness_leak=blindness_leak, python=python))
    except ShowcauseError as exc:
        _fail(exc.message, exit_status(exc))
        return
    _write_output(service.render_result(result, fmt), output)
    raise typer.Exit(service.exit_code(result, rule))


def _read_task(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read --task-file {path}: {exc}") from None


@cases_app.command("prepare")
def cases_prepare(
    cases_dir: Annotated[Path, typer.Argument(help="A folder of repo cases, or one case.")],
) -> None:
    """Download the releases and build the environments real-world cases need, once, into the cache
    (reviews never download). One line per case; exit 2 when something cannot be had."""
    from showcause.bench.cases import find_cases

    try:
        paths = find_cases(cases_dir)
    except ShowcauseError as exc:
        _fail(exc.message, exit_status(exc))
        return
    failed = 0
    for path in paths:   # one case that cannot be had does not stop the others
        try:
            held = service.prepare_case(path)
        except ShowcauseError as exc:
            failed += 1
            typer.echo(f"FAIL {path.name:<40} {exc.message}")
            continue
        typer.echo(f"ok   {path.name:<40} {'; '.join(held) or 'holds its own trees'}")
    if failed:
        _fail(f"{failed} of {len(paths)} case(s) could not be prepared")


@cases_app.command("verify")
def cases_verify(
    cases_dir: Annotated[Path, typer.Argument(help="A folder of repo cases, or one case.")],
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Cases verified in parallel.")] = 2,
) -> None:
    """Check every case label mechanically; one line per case, exit 1 on any failure, 3 without a sandbox."""
    from concurrent.futures import ThreadPoolExecutor

    from showcause.bench.cases import find_cases
    from showcause.bench.verify import verify_case

    try:
        service.require_sandbox()   # labels are checked by running tests: never without a sandbox
        paths = find_cases(cases_dir)
    except ShowcauseError as exc:
        _fail(exc.message, exit_status(exc))
        return
    if not paths:
        _fail(f"{cases_dir}: no cases (folders with case.json)")
    failed = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for verdict in pool.map(verify_case, paths):
            typer.echo(verdict.line())
            failed += not verdict.ok
    typer.echo(f"{len(paths) - failed} passed, {failed} failed")
    raise typer.Exit(1 if failed else 0)


# long: its signature is the 18 typer options of `showcause bench` (one line each); the body is ~45 lines
@app.command("bench")
def bench(
    cases_dir: Annotated[Path, typer.Argument(help="A folder of repo cases.")],
    modes_opt: Annotated[str, typer.Option("--modes", help="Comma-separated review modes.")] = "mechanical",
    model: Annotated[list[str] | None, typer.Option("--model", help="provider:model for the model-driven modes; "
                                                    "repeat for several models.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible server URL.")] = None,
    runs: Annotated[int, typer.Option("--runs", help="Runs per case, mode and model.")] = 1,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Reviews in parallel.")] = 2,
    out: Annotated[Path, typer.Option("--out", help="Output folder (results.json, report.md, PNG).")] = Path(
        "bench-out"),
    resume: Annotated[bool, typer.Option("--resume", help="Continue a run in --out (same cases, modes, models, "
                                         "config, budgets and prompts).")] = False,
    config: ConfigOpt = None, isolation: IsolationOpt = None,
    retries: Annotated[int, typer.Option("--retries", help="Retries of a review after a transient failure.")] = 2,
    retry_backoff: Annotated[float, typer.Option("--retry-backoff", help="Seconds before the first retry "
                                                 "(doubling; tripled after RATE_LIMITED).")] = 5.0,
    max_cost: Annotated[float | None, typer.Option("--max-cost", help="Hard stop in USD (exit 3 when reached; "
                                                   "earlier sessions' spend counts).")] = None,
    unpriced_reserve: Annotated[float, typer.Option("--unpriced-reserve", help="USD reserved per review of a "
                                                    "model with no known price.")] = 0.50,
    max_rpm: Annotated[float | None, typer.Option("--max-rpm", help="Model calls per minute, across all "
                                                  "workers (evenly spaced).")] = None,
    baseline: Annotated[str | None, typer.Option("--baseline", help="Mode the others are compared with "
                                                 "(paired cluster bootstrap).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 42,
) -> None:
    """Benchmark judges on labelled cases: results.json, report.md and recall_fi.png in --out.

    Exit 0 when every planned review ran (failed reviews included), 2 bad input or a refused --resume,
    3 stopped at --max-cost (partial results written; raise the limit and --resume).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from showcause.bench.report import import_plotting, render_report, write_plot
    from showcause.bench.runner import EXIT_STOPPED, BenchConfig, run_bench

    modes_list = tuple(m.strip() for m in modes_opt.split(",") if m.strip())
    models = tuple(m.strip() for m in model or [] if m.strip())
    cfg = BenchConfig(cases_dir, modes_list, runs, concurrency, out, resume, config, models=models,
                      base_url=base_url, retries=retries, backoff_s=retry_backoff, max_cost=max_cost,
                      max_rpm=max_rpm, unpriced_reserve=unpriced_reserve, baseline=baseline, seed=seed,
                      isolation=isolation)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, transient=True, refresh_per_second=2) as bar:
            task = bar.add_task("reviews", total=None)

            def tick(done: int, total: int, record: dict[str, Any]) -> None:
                bar.update(task, completed=done, total=total, description=f"{record['case']} {record['verdict']}")
                if total - done == concurrency - 1:   # a worker has nothing left: load the plot library on it
                    threading.Thread(target=import_plotting, daemon=True).start()

            results = run_bench(cfg, tick)
    except ShowcauseError as exc:
        _fail(exc.message, exit_status(exc))
        return
    parts = ["showcause bench", str(cases_dir), "--modes", ",".join(modes_list), *(f"--model {m}" for m in models),
             *(["--base-url URL"] if base_url else []), "--runs", str(runs), "--concurrency", str(concurrency),
             "--retries", str(retries), *([f"--max-cost {max_cost:g}"] if max_cost is not None else []),
             *([f"--max-rpm {max_rpm:g}"] if max_rpm else []), *([f"--baseline {baseline}"] if baseline else []),
             "--seed", str(seed), "--out", str(out)]
    (out / "report.md").write_text(render_report(results, " ".join(parts)), encoding="utf-8")
    write_plot(results, out / "recall_fi.png")
    for label, m in results["metrics"].items():
        g = m["gated"]
        recall = ", ".join(f"{k} {v['k']}/{v['n']}" for k, v in g["recall"].items())
        fi = g["false_intervention"]
        typer.echo(f"{label}: recall {recall}; false interventions {fi['k']}/{fi['n']}; failed {m['failed']}"
                   + (f"; not run {m['not_run']}" if m["not_run"] else ""))
    typer.echo(f"wall time {results['wall_seconds']} s; report: {out / 'report.md'}")
    stopped = results["stopped"]
    if stopped:
        typer.echo(f"showcause: stopped at --max-cost ${stopped['max_cost_usd']:g}: spent ${stopped['spent_usd']:.4f}, "
                   f"the next review ({stopped['next']}) reserves ${stopped['next_reserve_usd']:.4f}; "
                   f"{len(results['not_run'])} review(s) not run. Raise --max-cost and rerun with --resume.", err=True)
        raise typer.Exit(EXIT_STOPPED)


@app.command("sandbox")
def sandbox_status(
    isolation: IsolationOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the probes as JSON.")] = False,
) -> None:
    """Which isolation level a review gets here, and why a level does not work. Exit 0, or 3 without one."""
    try:
        doc, text = service.sandbox_status(isolation)
    except ShowcauseError as exc:
        _fail(exc.message, exit_status(exc))
        return
    typer.echo(json.dumps(doc, indent=2) if as_json else text)
    raise typer.Exit(EXIT_INCONCLUSIVE if doc.get("error") else 0)


@app.command("modes")
def modes(as_json: Annotated[bool, typer.Option("--json", help="Print every mode's spec as JSON.")] = False,
          markdown: Annotated[bool, typer.Option("--markdown", help="Print the table of docs/modes.md.")] = False,
          ) -> None:
    """List the review modes and what each declares (generated from the mode registry)."""
    if as_json:
        typer.echo(json.dumps([dataclasses.asdict(spec) for spec in service.modes()], indent=2))
    elif markdown:
        typer.echo(service.modes_markdown(), nl=False)
    else:
        typer.echo(service.modes_text(), nl=False)


def _interrupted(signum: int) -> None:
    # Every sandboxed process is already dead (the handler killed them); leave no temporary tree behind
    # and do not wait for worker threads: a signal ends the run within moments.
    remove_tracked_dirs()
    typer.echo(f"showcause: interrupted by signal {signum}", err=True)
    sys.stdout.flush()
    os._exit(exit_status(Interrupted(signum)))


def _internal_error(exc: Exception) -> None:
    # The last resort: one line and exit 3 (a failed run, never read as a block); the traceback only on request.
    import traceback

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
    install_handlers()
    try:
        app()
    except Interrupted as exc:
        _interrupted(exc.signum)
    except KeyboardInterrupt:
        _interrupted(2)
    except typer.Exit as exc:   # click normally turns it into SystemExit; keep its code either way
        sys.exit(exc.exit_code)
    except Exception as exc:    # SystemExit is no Exception: usage errors and verdict codes pass untouched
        _internal_error(exc)
