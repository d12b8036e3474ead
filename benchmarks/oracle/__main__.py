"""`python -m benchmarks.oracle`: build the corpus, judge every change, and write the table (docs/oracle.md)."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from .changes import Change, make_changes  # noqa: E402
from .heads import head_truth, keep_judged  # noqa: E402
from .judge import review  # noqa: E402
from .projects import BASE, Project, load_projects, materialize  # noqa: E402
from .report import compare, table  # noqa: E402
from .truth import SuiteRun, run_suite  # noqa: E402


def _args() -> argparse.Namespace:
    from showcause.core.cachedir import cache_root

    ap = argparse.ArgumentParser(prog="python -m benchmarks.oracle", description=__doc__)
    ap.add_argument("--corpus", type=Path, default=Path(__file__).with_name("projects.toml"))
    ap.add_argument("--work", type=Path, default=cache_root() / "oracle", help="repositories, environments, results")
    ap.add_argument("--projects", default="", help="comma-separated project names (default: all)")
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--mutants", type=int, default=20, help="mutants per project")
    ap.add_argument("--test-edits", type=int, default=4, help="test deletions and renames per project")
    ap.add_argument("--slow-above", type=float, default=60.0,
                    help="a project whose suite takes longer (seconds) gets a quarter of the mutants")
    ap.add_argument("--kinds", default="", help="comma-separated change kinds (mutant, test-deletion, test-rename, "
                    "upstream, revert; default: all)")
    ap.add_argument("--sample", type=int, default=0, help="judge only N changes drawn at random (seeded)")
    ap.add_argument("--shard", default="1/1", help="I/N: this process judges every N-th project from the I-th")
    ap.add_argument("--report-only", action="store_true", help="only write the table from the results so far")
    ap.add_argument("--truth-from", type=Path, default=None,
                    help="a work folder whose judged rows give their changes' truth (same seed and branches): "
                         "re-measure the reviews of exactly those changes without running the suites again")
    ap.add_argument("--doc", type=Path, default=ROOT / "docs" / "oracle.md")
    return ap.parse_args()


def _progress(done: int, total: int, text: str) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {text[:70]:<70}")
    sys.stderr.flush()


def _base_runs(project: Project, repo: Path, venv: Path | None, work: Path,
               ref: str = BASE) -> tuple[list[SuiteRun], dict[str, float]]:
    """Three whole-suite runs of a base and one type check, once per project version (kept in the work folder)."""
    version = project.version if ref == BASE else f"{project.previous}-previous"
    path = work / "truth" / f"{project.name}-{version}.json"
    if path.is_file():
        doc = json.loads(path.read_text(encoding="utf-8"))
        return [SuiteRun(**r) for r in doc["runs"]], doc["baseline"]
    runs = [run_suite(project, repo, ref, venv) for _ in range(3)]
    baseline = {"suite_s": sorted(r.seconds for r in runs)[1],
                "typecheck_s": _typecheck_seconds(project, repo, venv, ref)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": [asdict(r) for r in runs], "baseline": baseline}), encoding="utf-8")
    return runs, baseline


def _fresh_baseline(project: Project, repo: Path, venv: Path | None, work: Path) -> dict[str, float]:
    """The project's own run (median of three) plus one type check, measured by this work folder's run: a
    re-measure of the reviews (`--truth-from`) is set against a baseline taken beside it, never one taken
    under another run's load (kept in `baselines.json`)."""
    path = work / "baselines.json"
    kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    if project.name not in kept:
        runs = [run_suite(project, repo, BASE, venv) for _ in range(3)]
        kept[project.name] = {"suite_s": sorted(r.seconds for r in runs)[1],
                              "typecheck_s": _typecheck_seconds(project, repo, venv, BASE)}
        path.write_text(json.dumps(kept, indent=0, sort_keys=True), encoding="utf-8")
    return kept[project.name]


def _typecheck_seconds(project: Project, repo: Path, venv: Path | None, ref: str = BASE) -> float:
    """One type check of the tree by the checker the project is set up for, as its CI would run it."""
    import subprocess
    import tempfile

    from showcause.policy import load_policy
    from showcause.sandbox.projectenv import resolve_env
    from showcause.tools.diagnostics import choose_checkers, run_checker

    with tempfile.TemporaryDirectory(prefix="oracle-tc-") as tmp:
        tree = Path(tmp)
        archive = subprocess.run(["git", "-C", str(repo), "archive", ref], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        env = resolve_env(repo, python=venv / "bin" / "python" if venv else None)
        started = time.monotonic()
        for checker in choose_checkers(tree, "auto"):
            run_checker(tree, checker, load_policy(), env=env)
        return round(time.monotonic() - started, 2)


def _judge(project: Project, change: Change, repo: Path, venv: Path | None, base: list[SuiteRun],
           work: Path) -> dict[str, object]:
    found = head_truth(project, change, repo, venv, base, work)
    config = str(project.extra.get("review_config", ""))
    seen = review(repo, change.branch, venv, cold=False, config=config, base=change.base)
    cold_s = review(repo, change.branch, venv, cold=True, config=config, base=change.base).seconds
    excluded = "flaky head" if found.flaky else ""
    if seen.verdict == "ERROR" or seen.exit_code in (2, 3):
        excluded = excluded or f"review exit {seen.exit_code}: {seen.error}"
    truth = list(found.truth)
    return {"id": change.id, "project": project.name, "kind": change.kind, "description": change.description,
            "truth": truth, "excluded": excluded, "head_s": found.seconds, "head_error": found.error,
            "review": {"verdict": seen.verdict, "exit": seen.exit_code, "seconds": round(seen.seconds, 2),
                       "cold_s": round(cold_s, 2) if cold_s else None, "blocked": list(seen.blocked_tests),
                       "other_blocks": list(seen.other_blocks), "ran": list(seen.ran)},
            "compare": compare(truth, list(seen.blocked_tests), list(seen.ran)),
            "judged": {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "code": _code_version()}}


def _code_version() -> str:
    """The commit of showcause that judged a row (with `+` when its tree had edits): a row judged by other code
    than the table's is found, and judged again, by this."""
    import subprocess

    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "src"], capture_output=True,
                           text=True)
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


_BEGIN, _END = "<!-- BEGIN oracle-table -->", "<!-- END oracle-table -->"


def _into_doc(doc: Path, text: str, count: int) -> None:
    """The table, between the doc's markers (left alone when it has none)."""
    if not doc.is_file():
        return
    body = doc.read_text(encoding="utf-8")
    if _BEGIN not in body or _END not in body:
        return
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    said = f"{count} changes judged; table written {stamp} by `python -m benchmarks.oracle`:"
    block = f"{_BEGIN}\n{said}\n\n{text}\n{_END}"
    head, rest = body.split(_BEGIN, 1)
    doc.write_text(head + block + rest.split(_END, 1)[1], encoding="utf-8")


def _load(path: Path) -> dict[str, dict[str, object]]:
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {str(r["id"]): r for r in rows}


def _load_all(work: Path, seed: int) -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = {}
    for path in sorted(work.glob(f"results-{seed}*.jsonl")):
        rows.update(_load(path))
    return rows


def main() -> int:
    args = _args()
    projects = load_projects(args.corpus)
    if args.projects:
        wanted = set(args.projects.split(","))
        projects = [p for p in projects if p.name in wanted]
    index, count = (int(x) for x in args.shard.split("/"))
    projects = projects[index - 1 :: count]
    args.work.mkdir(parents=True, exist_ok=True)
    # One file per shard, so that shards running at once never interleave their lines; all are read back.
    suffix = "" if count == 1 else f"-shard{index}of{count}"
    results_path = args.work / f"results-{args.seed}{suffix}.jsonl"
    done = _load_all(args.work, args.seed)
    baselines: dict[str, dict[str, float]] = {}
    if not args.report_only:
        _run(args, projects, done, results_path, baselines)
    return _write(args, _load_all(args.work, args.seed), baselines)


def _run(args: argparse.Namespace, projects: list[Project], done: dict[str, dict[str, object]], results_path: Path,
         baselines: dict[str, dict[str, float]]) -> None:
    plan: list[tuple[Project, Path, Path | None, Change]] = []
    for n, project in enumerate(projects, 1):
        _progress(n - 1, len(projects), f"preparing {project.name}")
        repo, venv = materialize(project, args.work)
        slow = project.suite_seconds > args.slow_above
        changes = make_changes(project, repo, args.seed, args.mutants // 4 if slow else args.mutants,
                               args.test_edits // 2 if slow else args.test_edits, args.work)
        plan += [(project, repo, venv, c) for c in changes]
    if args.kinds:
        plan = [item for item in plan if item[3].kind in args.kinds.split(",")]
    # A seeded shuffle, so that any prefix is a random sample and a larger --sample extends a smaller one.
    random.Random(args.seed).shuffle(plan)
    if args.sample:
        plan = plan[: args.sample]
    if args.truth_from is not None:   # the changes judged there, their truth kept where head_truth reads it
        earlier = _load_all(args.truth_from, args.seed)
        plan = [item for item in plan if item[3].id in earlier]
        for project, repo, _venv, change in plan:
            keep_judged(args.work, project, change, repo, earlier[change.id])
    todo = [item for item in plan if item[3].id not in done]
    # Baselines of a re-measure: after the reviews, so that neither run meets the other.
    remeasure = {p.name: (p, r, v) for p, r, v, _c in plan} if args.truth_from is not None else {}
    with results_path.open("a", encoding="utf-8") as out:
        for n, (project, repo, venv, change) in enumerate(todo, 1):
            _progress(n - 1, len(todo), change.id)
            base, baseline = _base_runs(project, repo, venv, args.work, change.base)
            if change.base == BASE:
                baselines[project.name] = baseline
            row = _judge(project, change, repo, venv, base, args.work)
            done[change.id] = row
            out.write(json.dumps(row) + "\n")
            out.flush()
        _progress(len(todo), len(todo), "done")
        sys.stderr.write("\n")
    for name, (project, repo, venv) in remeasure.items():
        _progress(0, 1, f"baseline {name}")
        baselines[name] = _fresh_baseline(project, repo, venv, args.work)


def _write(args: argparse.Namespace, rows: dict[str, dict[str, object]], baselines: dict[str, dict[str, float]]) -> int:
    fresh = args.work / "baselines.json"
    if fresh.is_file():   # measured beside this folder's reviews: they win over the truth runs' own
        for name, value in json.loads(fresh.read_text(encoding="utf-8")).items():
            baselines.setdefault(name, value)
    for path in (args.work / "truth").glob("*.json"):
        if path.stem.endswith("-previous"):
            continue
        name = path.stem.rsplit("-", 1)[0]
        baselines.setdefault(name, json.loads(path.read_text(encoding="utf-8"))["baseline"])
    text = table(list(rows.values()), baselines)  # type: ignore[arg-type]   # also compares each row again
    print(text)
    _into_doc(args.doc, text, len(rows))
    failures = [r for r in rows.values() if not r.get("excluded")
                and (r["compare"]["fail_open"] or r["compare"]["false_block"])]  # type: ignore[index]
    for row in failures:
        print(f"- {row['id']} ({row['description']}): {row['compare']}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
