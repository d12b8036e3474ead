"""The truth of one change: head's whole suite run (once, and twice more where an outcome differs from base),
against base's three runs. It depends on the two trees only, so it is kept by their git tree ids in the work
folder (`truth/heads/PROJECT.json`) and a later run (a re-measure of the reviews after a speed change, another
shard) reads it back instead of running the suite again."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .changes import Change
from .projects import Project
from .truth import FILE_FILTERS, SuiteRun, broken, differs, run_suite

__all__ = ["HeadTruth", "head_truth", "keep_judged"]


@dataclass(frozen=True)
class HeadTruth:
    truth: tuple[str, ...]   # tests that passed every base run and failed every head run
    flaky: bool              # head's outcomes differ between its runs
    seconds: float           # head's first whole-suite run
    error: str               # why that run gave no report ("" when it did)
    per_file: bool = False   # read from one run per test file: the whole run gave no report in any run
    collected_on: bool = False   # pytest went on past collection errors (truth.py); kept before: it stopped


def _tree(repo: Path, ref: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", f"{ref}^{{tree}}"], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def _key(repo: Path, change: Change) -> str:
    return f"{_tree(repo, change.base)}..{_tree(repo, change.branch)}"


def _path(work: Path, project: str) -> Path:
    return work / "truth" / "heads" / f"{project}.json"


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _store(work: Path, project: str, change: Change, key: str, found: HeadTruth) -> None:
    path = _path(work, project)
    kept = _load(path)
    kept[change.id] = {"key": key, "value": {**asdict(found), "truth": list(found.truth)}}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(kept, indent=0, sort_keys=True), encoding="utf-8")
    tmp.replace(path)   # whole or not at all: an interrupted run never leaves half a file


def _cached(work: Path, project: Project, change: Change, key: str) -> HeadTruth | None:
    hit = _load(_path(work, project.name)).get(change.id)
    if not isinstance(hit, dict) or hit.get("key") != key or not isinstance(hit.get("value"), dict):
        return None
    value: dict[str, Any] = hit["value"]
    found = HeadTruth(tuple(value["truth"]), bool(value["flaky"]), float(value["seconds"]), str(value["error"]),
                      bool(value.get("per_file")), bool(value.get("collected_on")))
    # Kept from whole runs that wrote no report, where one run per file can tell which tests broke: again.
    return None if found.error and not found.per_file and project.runner in FILE_FILTERS else found


def _per_file(project: Project, repo: Path, ref: str, venv: Path | None, base: list[SuiteRun]) -> SuiteRun:
    """Head's suite run one test file at a time (the files base ran): where the whole run ended without a
    report (a test that exits jest's process), each file says which of its own tests broke; a file that
    writes no report has all its tests missing."""
    outcomes: dict[str, str] = {}
    seconds = 0.0
    for file in sorted({t.split("::", 1)[0] for t in base[0].outcomes if "::" in t}):
        run = run_suite(project, repo, ref, venv, files=(file,))
        outcomes.update(run.outcomes)
        seconds += run.seconds
    return SuiteRun(outcomes, round(seconds, 2), 0)


def head_truth(project: Project, change: Change, repo: Path, venv: Path | None, base: list[SuiteRun],
               work: Path) -> HeadTruth:
    """The change's truth, from the work folder when these two trees were judged before."""
    key = _key(repo, change)
    hit = _cached(work, project, change, key)
    if hit is not None and not _stopped_at_collection(project, hit, base):
        return hit
    head = [run_suite(project, repo, change.branch, venv)]
    if head[0].error or differs(base, head[0]):
        head += [run_suite(project, repo, change.branch, venv) for _ in range(2)]
    whole = head[0]
    per_file = all(h.error for h in head) and project.runner in FILE_FILTERS
    if per_file:
        head = [_per_file(project, repo, change.branch, venv, base)]
        if differs(base, head[0]):
            head += [_per_file(project, repo, change.branch, venv, base) for _ in range(2)]
    # A suite that produced no report on head in every run, where base always did, ran none of its tests: the
    # change broke them all (a package that no longer imports from a conftest); a report some of the time is
    # flaky.
    errors = {bool(h.error) for h in head}
    gone = _removed_upstream(repo, change, base, head[0]) if change.kind == "upstream" else ()
    removed = change.removed_tests + gone
    truth = sorted(broken(base, head, removed)) if errors == {True} or errors == {False} else []
    flaky = len(errors) > 1 or (len(head) > 1 and len({frozenset(t for t, o in h.outcomes.items() if o == "passed")
                                                       for h in head}) > 1)
    found = HeadTruth(tuple(truth), flaky, round(whole.seconds, 2), whole.error[:300], per_file,
                      project.runner == "pytest")
    _store(work, project.name, change, key, found)
    return found


def _stopped_at_collection(project: Project, hit: HeadTruth, base: list[SuiteRun]) -> bool:
    """A pytest truth kept from a run that stopped at a collection error: every test base passed counted broken
    (boltons: one module that no longer imports, 570 tests). Judged again, going on past it."""
    if project.runner != "pytest" or hit.collected_on:
        return False
    passing = {t for t, o in base[0].outcomes.items() if o == "passed"}
    return len(passing) > 20 and passing <= set(hit.truth)


def _removed_upstream(repo: Path, change: Change, base: list[SuiteRun], head: SuiteRun) -> tuple[str, ...]:
    """Tests of the previous release that the next one no longer has: missing on head, and their file gone or
    no longer naming them (a test whose file still names it but did not run is broken, not removed)."""
    out = []
    for test in set(base[0].outcomes) - set(head.outcomes):
        function = test.split("[", 1)[0]
        if any(t.startswith(function + "[") for t in head.outcomes):
            out.append(test)   # its parametrization changed: another set of ids of the same function runs
            continue
        file, _, rest = test.partition("::")
        name = rest.replace(" > ", "::").rsplit("::", 1)[-1].split("[", 1)[0]
        shown = subprocess.run(["git", "-C", str(repo), "show", f"{change.branch}:{file}"], capture_output=True,
                               text=True, errors="replace") if file else None
        named = shown is not None and shown.returncode == 0 and re.search(rf"\b{re.escape(name)}\b", shown.stdout)
        if not named:   # a whole word: test_x is not named by test_x_renamed
            out.append(test)
    return tuple(out)


def keep_judged(work: Path, project: Project, change: Change, repo: Path, row: dict[str, object]) -> None:
    """Keep the truth of a row judged before this cache existed (same seed, same branches), unless kept."""
    key = _key(repo, change)
    if _load(_path(work, project.name)).get(change.id, {}).get("key") == key:
        return
    truth = row.get("truth")
    found = HeadTruth(tuple(str(t) for t in truth) if isinstance(truth, list) else (),
                      row.get("excluded") == "flaky head", float(str(row.get("head_s") or 0.0)),
                      str(row.get("head_error") or ""))
    _store(work, project.name, change, key, found)
