"""The processes of one run_tests copy ("lane"): a group per process, or, for a per-file runner that can
share one process among the files of a project (jest: `batch_key`), one process for the whole batch, its
files read one by one from its report. A file the batch did not run as it would alone (missing from the
report, failed as a whole, or the process died, timed out or exited otherwise than 0/1) runs again alone,
exactly as without the batch, in a fresh copy; only that solo run counts for it. A runner's group of files
in one process (pytest's) that is killed runs its files alone the same way."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult, run_sandboxed
from showcause.sandbox.workspace import RunDirs, fresh_copy, fresh_out
from showcause.tools.runners.base import Runner, TestOutcome, describe_run, unreported
from showcause.tools.runners.jsreport import ANSI

__all__ = ["BATCH_MAX", "Row", "batches", "killed", "run_lane"]

BATCH_MAX = 25       # files per batch process: bounds its CPU (RLIMIT_CPU is per process) and memory
_BATCH_SCALE = 2     # a batch's wall limit, in single-file limits: bounded waste when one file hangs


@dataclass(frozen=True)
class Row:
    """What one group (or one file of a batch) came back with: its processes (none for a file read from a
    batch whose process an earlier row carries), outcomes, and why nothing started (`started` False)."""

    targets: list[str]
    procs: list[ProcResult] = field(default_factory=list)
    outcomes: list[TestOutcome] = field(default_factory=list)
    problem: str = ""
    about: str = ""
    started: bool = True


def _file(target: str) -> str:
    return target.split("::", 1)[0]


def _files(group: list[str]) -> list[str]:
    return list(dict.fromkeys(_file(t) for t in group))


def _batch_key(runner: Runner, tree: Path, file: str, env: ProjectEnv) -> str | None:
    key = getattr(runner, "batch_key", None)
    value = key(tree, file, env) if runner.per_file and callable(key) else None
    return value if isinstance(value, str) else None


def batches(tree: Path, groups: list[tuple[Runner, list[str]]], lanes: int,
            env: ProjectEnv) -> list[tuple[Runner, list[str]]]:
    """Per-file groups of a batching runner merged per project into batches of at most BATCH_MAX files
    (at least `lanes` of them, so the copies that run at once share the work), each where its first file
    was. A file whose path ends another's of its project stays alone: the report names files by suffix."""
    keyed: dict[tuple[str, str], list[int]] = {}
    for i, (runner, group) in enumerate(groups):
        key = _batch_key(runner, tree, _file(group[0]), env)
        if key is not None:
            keyed.setdefault((runner.name, key), []).append(i)
    merged: dict[int, list[int]] = {}   # first group index of a batch -> its groups' indexes
    for members in keyed.values():
        names = [_file(groups[i][1][0]) for i in members]
        alone = {f for f in names if any(g != f and g.endswith("/" + f) for g in names)}
        joined = [i for i, f in zip(members, names, strict=True) if f not in alone]
        count = max(min(lanes, len(joined)), math.ceil(len(joined) / BATCH_MAX)) if joined else 0
        for c in range(count):
            part = joined[len(joined) * c // count:len(joined) * (c + 1) // count]
            merged[part[0]] = part
    taken = {i for part in merged.values() for i in part}
    planned: list[tuple[Runner, list[str]]] = []
    for i, (runner, group) in enumerate(groups):
        if i in merged:
            planned.append((runner, [t for j in merged[i] for t in groups[j][1]]))
        elif i not in taken:
            planned.append((runner, group))
    return planned


def killed(proc: ProcResult) -> bool:
    rc = proc.returncode
    return proc.timed_out or (rc is not None and (rc < 0 or rc in (128 + 9, 128 + 11)))


# A stack frame or a line of a code frame (jest's `  > 2 | process.exit(3);`): where, not what.
_FRAME = re.compile(r"^(at |>?\s*\d+ \||\|)")


def _last_words(text: str) -> str:
    """The last three lines of a process's output that say what happened, on one line."""
    lines = [ln.strip() for ln in ANSI.sub("", text).splitlines()[-200:]]
    return " | ".join([ln for ln in lines if ln and not _FRAME.match(ln)][-3:])[:400]


def _read(runner: Runner, out: Path, group: list[str], proc: ProcResult) -> list[TestOutcome]:
    """The group's outcomes from its own report. A per-file run whose report does not name its file is an
    error of that file, said with that process's own last lines (never left to the merged output, whose
    end belongs to another file); a killed one is charged its kill (testexec's `_charge_killed`)."""
    found = runner.read(out, group)
    file = _file(group[0])
    if killed(proc) or not unreported(runner, out, file):
        return found
    said = _last_words(proc.stderr.strip() or proc.stdout)
    why = f"{runner.name} reported nothing for this file (exit {proc.returncode})" + (f": {said}" if said else "")
    return [*found, TestOutcome(file, "error", why)]


@dataclass(frozen=True)
class _Lane:
    tree: Path
    policy: Policy
    timeout_s: float | None
    env: ProjectEnv


def _start(lane: _Lane, runner: Runner, group: list[str], dirs: RunDirs, outs: Iterator[int],
           timeout_s: float | None) -> tuple[ProcResult, Path] | str:
    """One process for `group` with a report dir of its own (`fresh_out`), or why it cannot start."""
    cmd = runner.command(lane.tree, group, lane.policy, lane.env)
    if cmd.problem:   # nothing to start (its runner is not installed): said, never a pass
        return cmd.problem
    out = fresh_out(dirs, next(outs))
    runner.prepare(out)
    proc = run_sandboxed(cmd.argv, workspace=dirs.workspace, out_dir=out, policy=lane.policy,
                         memory_mb=lane.policy.process.test_memory_mb, timeout_s=timeout_s, env=cmd.env,
                         address_mb=cmd.address_mb, mounts=lane.env.mounts, cwd=cmd.cwd)
    return proc, out


def _solo(lane: _Lane, runner: Runner, group: list[str], dirs: RunDirs, outs: Iterator[int]) -> Row:
    started = _start(lane, runner, group, dirs, outs, lane.timeout_s)
    if isinstance(started, str):
        return Row(group, problem=started, started=False)
    proc, out = started
    return Row(group, [proc], _read(runner, out, group, proc), about=describe_run(runner, out, lane.env))


def _group(lane: _Lane, runner: Runner, group: list[str], dirs: RunDirs, outs: Iterator[int]) -> list[Row]:
    """A runner's group of files in one process (pytest: one per project), its wall limit scaled as a batch's.
    Killed (past its time, its CPU or its memory), it proves nothing about the files it had not finished:
    each file then runs alone, as a batch's unfinished files do, and only those runs count (a machine under
    load must not turn a whole suite's unfinished tests into timeouts of the change)."""
    files = _files(group)
    if len(files) == 1:
        return [_solo(lane, runner, group, dirs, outs)]
    limit = (lane.timeout_s or lane.policy.process.timeout_s) * min(len(files), _BATCH_SCALE)
    started = _start(lane, runner, group, dirs, outs, limit)
    if isinstance(started, str):
        return [Row(group, problem=started, started=False)]
    proc, out = started
    if not killed(proc):
        return [Row(group, [proc], _read(runner, out, group, proc), about=describe_run(runner, out, lane.env))]
    return _alone(lane, runner, group, files)


def _alone(lane: _Lane, runner: Runner, group: list[str], files: list[str]) -> list[Row]:
    """Each of `files` run alone, in a copy no earlier process touched."""
    with fresh_copy(lane.tree) as dirs:
        outs = itertools.count()
        return [_solo(lane, runner, [t for t in group if _file(t) == f], dirs, outs) for f in files]


def _whole(runner: Runner, out: Path, file: str) -> bool:
    """The batch's report has `file` run as a file (not failed to load or run as a whole)."""
    ran = getattr(runner, "ran_whole", None)
    return callable(ran) and ran(out, file) is True


def _batch(lane: _Lane, runner: Runner, group: list[str], dirs: RunDirs, outs: Iterator[int]) -> list[Row]:
    """A batch's rows, one per file in its order: read from the batch's report, or from a solo rerun."""
    files = _files(group)
    limit = (lane.timeout_s or lane.policy.process.timeout_s) * min(len(files), _BATCH_SCALE)
    started = _start(lane, runner, group, dirs, outs, limit)
    if isinstance(started, str):
        return [Row(group, problem=started, started=False)]
    proc, out = started
    # Only an exit jest itself ends with (0 all passed, 1 something failed) vouches for its report.
    usable = not killed(proc) and proc.returncode in (0, 1)
    about = describe_run(runner, out, lane.env)
    rows: dict[str, Row] = {}
    carried = False   # the batch's process is counted once, with the first file read from it
    for file in files:
        mine = [t for t in group if _file(t) == file]
        if usable and _whole(runner, out, file):
            rows[file] = Row(mine, [] if carried else [proc], runner.read(out, mine), about=about)
            carried = True
    again = [f for f in files if f not in rows]
    if again:   # alone, as without the batch, in a copy the batch never touched
        rows.update(zip(again, _alone(lane, runner, group, again), strict=True))
    return [rows[f] for f in files]


def run_lane(tree: Path, lane: list[tuple[Runner, list[str]]], policy: Policy, timeout_s: float | None,
             env: ProjectEnv) -> list[list[Row]]:
    """One copy's groups, in order: per group its rows (one, or one per file of a batch). Each process
    writes its report into a report dir of its own (`fresh_out`)."""
    spec = _Lane(tree, policy, timeout_s, env)
    done: list[list[Row]] = []
    with fresh_copy(tree) as dirs:
        outs = itertools.count()
        for runner, group in lane:
            run: Callable[..., list[Row]] = _batch if len(_files(group)) > 1 and runner.per_file else _group
            done.append(run(spec, runner, group, dirs, outs))
    return done
