"""`showcause bench`: every (case, run, mode, model) is a record; checkpointed, resumable, cost-limited,
never silent on failure.

Records are planned run by run, case by case, with every (mode, model) of a case next to each other, so a
run stopped at the cost limit leaves cases covered by every arm rather than one arm complete.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from showcause.bench.assemble import assemble_results, repo_outcome
from showcause.bench.attempts import AttemptPolicy, Job, is_transient, record_key, run_job
from showcause.bench.cases import Case, case_set_hash, find_cases, load_case
from showcause.bench.costs import SpendLedger
from showcause.bench.decision_arms import bench_decision_mode
from showcause.bench.decision_bench import decision_cases, decision_results, decision_truth, plan_decisions
from showcause.bench.decision_casefile import is_decision_case_dir
from showcause.bench.decision_metrics import METRICS
from showcause.bench.identity import check_resume, git_state, run_identity, url_host
from showcause.bench.quorum_arms import MEMBER_PREFIX, QUORUM_MODE, QUORUM_PREFIX, QuorumArms, load_arms
from showcause.bench.ratelimit import RateLimiter
from showcause.bench.review_sheet import export_sheet
from showcause.bench.rules import REPO_METRICS, Rules, default_rules_path, load_rules
from showcause.bench.shard import Shard, in_shard, plan_digest
from showcause.core import jsonsafe
from showcause.core.errors import InputError, ShowcauseError
from showcause.core.version import __version__
from showcause.decision.review import decision_budget
from showcause.judges.contract import require_model
from showcause.judges.registry import judge_mode
from showcause.policy import Policy, load_policy
from showcause.providers.registry import get_provider
from showcause.sandbox.runner import available_isolation, process_slots
from showcause.service.inputs import with_isolation
from showcause.service.prepare import prepare_case

__all__ = ["CHECKPOINT", "EXIT_STOPPED", "LEDGER", "RUN_INFO", "BenchConfig", "JobRunner", "run_bench"]

CHECKPOINT = "records.jsonl"
RUN_INFO = "run.json"
LEDGER = "spend.jsonl"
EXIT_STOPPED = 3   # `showcause bench` stopped at --max-cost: results are partial, --resume continues
# How a record is produced: in this process (run_job) or on a cluster's worker (bench/dask_exec.py).
JobRunner = Callable[[Job, AttemptPolicy, "dict[str, Any] | None"], "dict[str, Any] | None"]


@dataclass(frozen=True)
class BenchConfig:
    cases_dir: Path
    modes: tuple[str, ...]
    runs: int
    concurrency: int
    out: Path
    resume: bool = False
    config: Path | None = None
    models: tuple[str, ...] = ()
    base_url: str | None = None
    retries: int = 2
    backoff_s: float = 5.0
    max_cost: float | None = None
    max_rpm: float | None = None
    unpriced_reserve: float = 0.50
    baseline: str | None = None
    seed: int = 42
    isolation: str | None = None      # --isolation over the config's
    rules: Path | None = None         # --rules: pre-registered questions (decision cases: the committed ones)
    shard: Shard | None = None        # --shard I/N: only the records hashing to slice I of N
    executor: str = "local"           # local, dask://HOST:PORT or dask-local:N
    record_timeout: float | None = None   # seconds per record on a cluster (its process group is killed)
    quorum: Path | None = None        # --quorum: the sources of mode `quorum` (else [quorum] of --config)


def _check_modes(cfg: BenchConfig, decision: bool, arms: QuorumArms | None) -> bool:
    """Whether a mode needs models; an unknown mode, a missing model or a misplaced --quorum is bad input."""
    needs_model = False
    for mode in cfg.modes:   # an unknown mode: InputError naming the modes of the case set's kind
        declared = (bench_decision_mode(mode, has_model=bool(cfg.models)) if decision
                    else judge_mode(mode, has_model=bool(cfg.models) or arms is not None)).spec
        if mode == QUORUM_MODE and not decision:
            continue   # its models are the quorum's sources
        if declared.needs_model and declared.model_option != "--model":
            raise InputError(f"bench cannot run mode {mode!r} yet: its models come from {declared.model_option}, "
                             "not --model")
        if declared.needs_model and not (arms is not None and not cfg.models):
            require_model(declared, cfg.models[0] if cfg.models else None)
        needs_model = needs_model or declared.needs_model
    return needs_model


def _check_quorum(cfg: BenchConfig, decision: bool) -> QuorumArms | None:
    """The quorum arms of `--modes quorum` (loaded and checked now: exit 2), or None without that mode."""
    if QUORUM_MODE not in cfg.modes or decision:
        if cfg.quorum is not None:
            raise InputError("--quorum goes with --modes quorum on repo cases")
        return None
    if cfg.executor != "local":   # a worker would need the configuration and its keys
        raise InputError("--modes quorum runs in this process: no --executor")
    if any(m.startswith((QUORUM_PREFIX, MEMBER_PREFIX)) for m in cfg.models):
        raise InputError(f"--model must not start with {QUORUM_PREFIX!r} or {MEMBER_PREFIX!r}: the bench names "
                         "its quorum arms so")
    return load_arms(cfg.quorum, cfg.config)


def _check(cfg: BenchConfig, decision: bool) -> tuple[dict[str, str | None], QuorumArms | None]:
    """Refuse bad flags before anything is written; returns each model's effective base URL (the quorum's
    arms first), and the quorum arms of `--modes quorum`."""
    if not cfg.modes:
        raise InputError("--modes names no mode")
    arms = _check_quorum(cfg, decision)
    needs_model = _check_modes(cfg, decision, arms)
    if len(set(cfg.modes)) != len(cfg.modes) or len(set(cfg.models)) != len(cfg.models):
        raise InputError("--modes and --model must not repeat a name")
    if cfg.runs < 1 or cfg.concurrency < 1:
        raise InputError("--runs and --concurrency must be at least 1")
    if cfg.retries < 0 or cfg.backoff_s < 0 or cfg.unpriced_reserve < 0:
        raise InputError("--retries, --retry-backoff and --unpriced-reserve must not be negative")
    if cfg.max_cost is not None and cfg.max_cost < 0:
        raise InputError("--max-cost must not be negative")
    if cfg.max_rpm is not None and cfg.max_rpm <= 0:
        raise InputError("--max-rpm must be positive")
    if cfg.executor != "local" and not re.fullmatch(r"dask://[^/\s]+:\d+|dask-local:[1-9]\d*", cfg.executor):
        raise InputError(f"--executor {cfg.executor!r}: expected local, dask://HOST:PORT or dask-local:N")
    if cfg.executor != "local" and cfg.max_rpm:   # the limiter paces calls in this process only
        raise InputError("--max-rpm is not supported with a Dask --executor")
    if cfg.record_timeout is not None and (cfg.record_timeout <= 0 or cfg.executor == "local"):
        raise InputError("--record-timeout must be positive and goes with a Dask --executor")
    if cfg.baseline is not None and cfg.baseline not in cfg.modes:
        raise InputError(f"--baseline {cfg.baseline!r} is not one of --modes")
    members = arms is not None and not cfg.models and needs_model
    if members:
        assert arms is not None
        arms.check_members()
    urls: dict[str, str | None] = arms.base_urls(members) if arms is not None else {}
    for spec in cfg.models if needs_model else ():
        try:   # a missing key or a bad spec is bad input now, not a failure in every record later
            provider = get_provider(spec, base_url=cfg.base_url)
        except ShowcauseError as exc:
            raise InputError(f"--model {spec}: {exc.message}") from None
        urls[spec] = getattr(provider, "base_url", None)
        close = getattr(provider, "close", None)
        if callable(close):
            close()
    return urls, arms


def _plan(cases: list[Case], cfg: BenchConfig, models: tuple[str, ...], arms: QuorumArms | None) -> list[Job]:
    arms_of: list[tuple[str, str | None]] = []
    for mode in cfg.modes:
        if arms is not None and mode == QUORUM_MODE:
            arms_of.append((mode, arms.label))
            continue
        needs_model = judge_mode(mode, has_model=bool(models)).spec.needs_model
        singles = [m for m in models if arms is None or m != arms.label]
        arms_of += [(mode, m) for m in singles] if needs_model else [(mode, None)]
    return [Job(c, mode, model, run) for run in range(1, cfg.runs + 1) for c in cases for mode, model in arms_of]


def _longest_first(jobs: list[Job]) -> list[Job]:
    """Within each run, mechanical reviews of big projects first: the last review to finish is then a short
    one, so the workers do not idle behind one long tail. A model's reviews keep the plan's order (their time
    is the model's, and a cost stop should cut the plan at a predictable place). Results keep plan order."""
    sizes: dict[Path, int] = {}
    for job in jobs:
        if job.case.path not in sizes:
            sizes[job.case.path] = sum(len(files) for _d, _s, files in os.walk(job.case.path / "base"))
    return sorted(jobs, key=lambda j: (j.run, 0 if j.model else -sizes[j.case.path]))


def _read_checkpoint(out: Path, identity: dict[str, Any], resume: bool) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The last record of every job of an earlier session (a resumed run only)."""
    info, ckpt = out / RUN_INFO, out / CHECKPOINT
    if not resume:
        if ckpt.exists():
            raise InputError(f"{out} already holds a benchmark run; use --resume or another --out")
        return {}
    if not info.exists():
        raise InputError(f"--resume: {out} holds no benchmark run")
    try:
        saved = jsonsafe.load_file(info, max_bytes=jsonsafe.MAX_RECORD_BYTES)
    except (OSError, ValueError) as exc:   # unreadable, not JSON, or beyond the caps of jsonsafe
        raise InputError(f"--resume: {info} is unreadable: {exc}") from None
    if not isinstance(saved, dict):
        raise InputError(f"--resume: {info} does not hold a run description")
    check_resume(saved, identity)
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for line in ckpt.read_text(encoding="utf-8").splitlines() if ckpt.exists() else []:
        try:
            record = jsonsafe.loads(line, max_bytes=jsonsafe.MAX_RECORD_BYTES)
            latest[record_key(record)] = record
        except (ValueError, TypeError, KeyError):
            continue  # a line cut by a crash (or not a record): that review runs again
    return latest


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class _Pool:
    """Workers pulling jobs in plan order until the queue is empty or the cost limit stops the run."""

    def __init__(self, jobs: list[Job], previous: dict[tuple[Any, ...], dict[str, Any]], policy: AttemptPolicy,
                 checkpoint: Path, progress: Callable[[int, int, dict[str, Any]], None] | None,
                 runner: JobRunner = run_job) -> None:
        self.runner = runner
        self.queue = deque(jobs)
        self.total = len(jobs)
        self.previous = previous
        self.policy = policy
        self.checkpoint = checkpoint
        self.progress = progress
        self.lock = threading.Lock()
        self.records: list[dict[str, Any]] = []
        self.refused: list[Job] = []
        self.cancelled = False

    def work(self) -> None:
        while True:
            with self.lock:
                if not self.queue or self.cancelled or self.policy.ledger.stopped is not None:
                    return
                job = self.queue.popleft()
            record = self.runner(job, self.policy, self.previous.get(job.key))
            with self.lock:
                if record is None:
                    self.refused.append(job)
                    continue
                self.records.append(record)
                with self.checkpoint.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(record) + "\n")
                done = len(self.records)
            if self.progress:
                self.progress(done, self.total, record)

    def run(self, workers: int) -> None:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            try:
                for fut in [pool.submit(self.work) for _ in range(workers)]:
                    fut.result()
            except BaseException:   # Ctrl-C: the reviews in flight finish and are kept, no new one starts
                self.cancelled = True
                raise


def _prepared(paths: list[Path], where: Path) -> list[Case]:
    """The cases, each with what it needs fetched once (a real-world case's releases and environment),
    before any review: reviews never download."""
    if not paths:
        raise InputError(f"{where}: no cases")
    cases = [load_case(p) for p in paths]
    for p in paths:
        prepare_case(p)
    return cases


@dataclass
class _Set:
    """The cases of one bench, whichever kind they are, and what the results say about them."""

    decision: bool
    cases: list[Any]
    case_set: str
    truth: dict[str, dict[str, Any]]
    isolation: str | None
    rules: Rules | None


def _case_set(cfg: BenchConfig, limits: Policy) -> _Set:
    decision = is_decision_case_dir(cfg.cases_dir)
    rules_path = cfg.rules or (default_rules_path() if decision else None)
    rules = load_rules(rules_path, METRICS if decision else REPO_METRICS) if rules_path else None
    if decision:   # nothing of a decision review runs any code: no sandbox is needed
        dcases, case_set = decision_cases(cfg.cases_dir)
        return _Set(True, dcases, case_set, decision_truth(dcases), None, rules)
    isolation = available_isolation(limits)   # no sandbox that hides the host: exit 3 before anything is written
    paths = find_cases(cfg.cases_dir)
    cases = _prepared(paths, cfg.cases_dir)
    truth = {c.id: c.doc.truth.model_dump() | {"language": c.doc.language, "source": c.doc.source.kind}
             for c in cases}
    return _Set(False, cases, case_set_hash(paths), truth, isolation, rules)


def _outcome(cs: _Set, cfg: BenchConfig, records: list[dict[str, Any]], not_run: list[dict[str, Any]],
             models: tuple[str, ...]) -> dict[str, Any]:
    """The metrics, comparisons and questions of the results, by the kind of case set."""
    if cs.decision:
        assert cs.rules is not None
        budgets = {m: decision_budget(bench_decision_mode(m, has_model=True), cfg.config) for m in cfg.modes}
        return decision_results(records, cs.truth, not_run, cs.rules, str(cfg.rules or default_rules_path()),
                                list(models), list(cfg.modes), budgets)
    return repo_outcome(records, cs.truth, not_run, baseline=cfg.baseline, seed=cfg.seed, rules=cs.rules,
                        rules_path=str(cfg.rules or default_rules_path()), models=list(models))


def _executor(cfg: BenchConfig) -> contextlib.AbstractContextManager[JobRunner]:
    """Where records run: threads of this process, or a Dask cluster (the optional `distributed` extra)."""
    if cfg.executor == "local":
        return contextlib.nullcontext(run_job)
    try:
        from showcause.bench.dask_exec import dask_runner
    except ImportError:
        raise InputError(f"--executor {cfg.executor}: Dask is not installed "
                         "(pip install 'showcause[distributed]')") from None
    setup = {"config": str(cfg.config.resolve()) if cfg.config else None, "isolation": cfg.isolation}
    return dask_runner(cfg.executor, cfg.record_timeout, setup)


def _provenance(cfg: BenchConfig, identity: dict[str, Any], urls: dict[str, str | None], isolation: str | None,
                limiter: RateLimiter | None, wall: float, arms: QuorumArms | None) -> dict[str, Any]:
    return {**({"quorum": arms.describe()} if arms is not None else {}),
        "case_set": identity["case_set"], "version": __version__, "git": git_state(),
        "modes": list(cfg.modes), "models": list(identity["models"]), "runs": cfg.runs,
        "base_url_hosts": {m: url_host(u) for m, u in urls.items()},
        "budgets": identity["budgets"], "prompt_hashes": identity["prompt_hashes"],
        "seed": cfg.seed, "baseline": cfg.baseline, "retries": cfg.retries, "retry_backoff_s": cfg.backoff_s,
        "concurrency": cfg.concurrency, "process_slots": process_slots(), "isolation": isolation,
        "max_rpm": cfg.max_rpm,
        "rate_limit_waited_s": round(limiter.waited_s, 3) if limiter else None,
        "max_cost_usd": cfg.max_cost, "unpriced_reserve_usd": cfg.unpriced_reserve, "wall_seconds": wall,
    }


def run_bench(cfg: BenchConfig, progress: Callable[[int, int, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    urls, arms = _check(cfg, is_decision_case_dir(cfg.cases_dir))
    if cfg.config is not None and not cfg.config.is_file():
        raise InputError(f"{cfg.config}: no such config file")
    limits = load_policy(cfg.config) if cfg.config is not None else load_policy()  # a bad file: exit 2 now
    limits = with_isolation(limits, cfg.isolation)
    cs = _case_set(cfg, limits)
    models = tuple(urls) if urls else ()
    identity = run_identity(case_set=cs.case_set, modes=list(cfg.modes), models=list(models),
                            runs=cfg.runs, config=cfg.config, base_urls=urls, limits=limits)
    identity["quorum"] = arms.text if arms is not None else ""   # a changed quorum file refuses a resume
    if cs.decision:   # the recorded mode orders come from the seed: a resume must keep it
        identity["mode_order_seed"] = cfg.seed
    # A shard resumes only as the same shard; an unsharded run.json has no key, which matches None.
    identity["shard"] = f"{cfg.shard[0]}/{cfg.shard[1]}" if cfg.shard else None
    cfg.out.mkdir(parents=True, exist_ok=True)
    latest = _read_checkpoint(cfg.out, identity, cfg.resume)
    full = plan_decisions(cs.cases, cfg.modes, models, cfg.runs, cfg.seed) if cs.decision else \
        _plan(cs.cases, cfg, models, arms)
    plan = [j for j in full if in_shard(j.key, cfg.shard)]
    planned = {j.key for j in plan}
    # Successes and non-transient failures are final; transient failures run again, carrying their attempts.
    kept = {k: r for k, r in latest.items() if k in planned and (r["status"] == "ok" or not is_transient(r["error"]))}
    again = {k: r for k, r in latest.items() if k in planned and k not in kept}
    _atomic_write(cfg.out / RUN_INFO, json.dumps(identity, indent=2))
    ckpt = cfg.out / CHECKPOINT
    _atomic_write(ckpt, "".join(json.dumps(r) + "\n" for r in [*kept.values(), *again.values()]))
    ledger = SpendLedger(cfg.out / LEDGER, cfg.max_cost)
    limiter = RateLimiter(cfg.max_rpm) if cfg.max_rpm else None
    policy = AttemptPolicy(config=cfg.config, base_url=cfg.base_url, retries=cfg.retries, backoff_s=cfg.backoff_s,
                           unpriced_reserve=cfg.unpriced_reserve, ledger=ledger, limiter=limiter, limits=limits,
                           isolation=cfg.isolation, quorum=arms)
    with _executor(cfg) as runner:   # a cluster's start and stop are not the bench's wall time
        started = time.monotonic()
        pool = _Pool(_longest_first([j for j in plan if j.key not in kept]), again, policy, ckpt, progress, runner)
        pool.run(cfg.concurrency)
        wall = round(time.monotonic() - started, 2)
    finished = {record_key(r): r for r in [*kept.values(), *again.values(), *pool.records]}
    provenance = _provenance(cfg, identity, urls, cs.isolation, limiter, wall, arms)
    results = assemble_results(provenance, list(finished.values()), [j.key for j in plan], cs.truth,
                               stopped=ledger.stopped, spend=ledger.totals(),
                               outcome=lambda records, not_run: _outcome(cs, cfg, records, not_run, models))
    if cs.decision:
        results["review_sheet_rows"] = export_sheet(results["records"], cs.truth, cfg.out, cfg.seed)
    if cfg.shard:   # what `bench merge` checks: the same whole plan, and which slice of it this is
        results["shard"] = {"index": cfg.shard[0], "count": cfg.shard[1], "plan": [list(j.key) for j in full],
                            "plan_digest": plan_digest([j.key for j in full]), "identity": identity}
    _atomic_write(cfg.out / "results.json", json.dumps(results, indent=2))
    return results
