"""What a test runner is, and what a run of one returns."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol, runtime_checkable

from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult

__all__ = ["Collection", "Command", "Runner", "TestOutcome", "TestRun", "describe_run", "group_key", "merge_procs",
           "unreported"]


@dataclass(frozen=True)
class TestOutcome:
    test: str          # test id: path::name (path alone for a file-level error), relative to the repo root
    outcome: str       # passed | failed | error | skipped | timeout
    message: str = ""


@dataclass(frozen=True)
class TestRun:
    outcomes: tuple[TestOutcome, ...]
    proc: ProcResult
    problem: str = ""  # why nothing usable came back (crash, timeout, missing runner)
    unstarted: bool = False   # some targets never ran (their runner is not installed)
    about: str = ""    # which runner ran, from which environment (a runner's optional `describe`)

    @property
    def complete(self) -> bool:
        """The run finished, so a test missing from its outcomes really does not exist there."""
        rc = self.proc.returncode
        # pytest: 0 ok, 1 failures, 4 id not found, 5 nothing collected; node: 0 or 1.
        return (not self.unstarted and not self.proc.timed_out and rc is not None
                and (bool(self.outcomes) or rc in (0, 4, 5)))


@dataclass(frozen=True)
class Collection:
    """A runner's own collection of a tree (pytest's, or a JavaScript runner asked in the sandbox)."""

    files: tuple[str, ...]               # the test files it collects, relative to the root
    errors: tuple[TestOutcome, ...]      # files that failed to collect, and projects whose collection failed
    # Files whose change can change what is collected elsewhere or gain tests (pytest: its local plugins and
    # conftests, and the modules it looked into and found no test in); None when not known (another runner,
    # or a collection that failed as a whole).
    sensitive: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Command:
    """One sandboxed process of a runner: its argv and extra environment (both may use {root}/{out}), the
    address-space limit it needs beyond its memory cap (a JIT reserves far more than it uses), and the
    directory inside the copy it starts in (a monorepo package's own; "" for the root). `problem`: why it
    cannot start at all (its runner is not installed): nothing runs, and the run reports it."""

    argv: list[str]
    env: dict[str, str]
    address_mb: int | None = None
    cwd: str = ""
    problem: str = ""


@runtime_checkable
class Runner(Protocol):
    name: ClassVar[str]
    suffixes: ClassVar[tuple[str, ...]]     # the test files it runs
    per_file: ClassVar[bool]                # one process per test file (else one for every target)

    def claims(self, tree: Path, file: str) -> bool:
        """Whether this runner is the one the project runs `file` with (its suffix already matched)."""
        ...

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        """The test files of `tree` this runner would run (relative paths); `runner_for` decides per file."""
        ...

    def prepare(self, out: Path) -> None:
        """Put what the run needs beside its report (a reporter plugin) into the out dir."""
        ...

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        """The process for `targets` of `tree` (its package's directory, config and installed runner)."""
        ...

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        """The outcomes the run reported, for the targets asked for only (the report is written by the code
        under test: a row for anything else is forged)."""
        ...


def merge_procs(procs: list[ProcResult]) -> ProcResult:
    """One process result standing for several sequential runs (a per-file runner)."""
    if len(procs) == 1:
        return procs[0]
    first = procs[0]
    failed = [p.returncode for p in procs if p.returncode]
    return ProcResult(argv=first.argv, returncode=None if any(p.timed_out for p in procs) else (failed[0] if failed
                      else 0), stdout="".join(p.stdout for p in procs)[-100_000:],
                      stderr="".join(p.stderr for p in procs)[-100_000:], timed_out=any(p.timed_out for p in procs),
                      truncated=any(p.truncated for p in procs), isolation=first.isolation,
                      seconds=sum(p.seconds for p in procs), root=first.root, out=first.out)


# Optional parts of a runner, outside the protocol (runners without them keep working):
#   project(tree, file) -> str: the project a file belongs to, for a runner that takes many targets in one
#       process but has several projects in one tree (pytest's monorepo packages): one process per project
#   describe(out, env) -> str: which runner and environment ran, for the output line
#   reported(out, file) -> bool: whether a per-file runner's report names `file` at all; when it does not
#       (the process died before writing it, or wrote it for other files only), the file is an error of its
#       own, said with that process's output

def group_key(runner: Runner, tree: Path, file: str) -> str:
    project = getattr(runner, "project", None)
    key = project(tree, file) if callable(project) else ""
    return key if isinstance(key, str) else ""


def unreported(runner: Runner, out: Path, file: str) -> bool:
    """A per-file runner's report has no entry for `file` (runners without `reported` are never asked)."""
    reported = getattr(runner, "reported", None)
    return runner.per_file and callable(reported) and reported(out, file) is False


def describe_run(runner: Runner, out: Path, env: ProjectEnv) -> str:
    describe = getattr(runner, "describe", None)
    text = describe(out, env) if callable(describe) else ""
    return text if isinstance(text, str) else ""
