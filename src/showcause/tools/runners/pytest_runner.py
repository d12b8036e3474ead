"""pytest, in the project's environment, with showcause's reporter plugin writing one JSON row per outcome.

The allowlist is what pytest itself collects (`pytest_collect`); each monorepo package's tests run in its
own directory (`project`), and every test id is relative to the repository root.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from showcause.core import jsonsafe
from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.base import Command, TestOutcome
from showcause.tools.runners.pytest_collect import Collection, collect
from showcause.tools.runners.pytest_projects import project_of
from showcause.tools.runners.pytest_support import about_run, prepare_out, pytest_argv, pytest_env

__all__ = ["PytestRunner", "read_pytest_report", "requested"]

_MISSING = ("ModuleNotFoundError", "No module named")


def requested(test: str, targets: list[str]) -> bool:
    return any(test == t or test.startswith((t + "::", t + "[")) for t in targets)


def read_pytest_report(out: Path) -> list[TestOutcome]:
    latest: dict[str, TestOutcome] = {}
    report = out / "report.jsonl"
    if not report.is_file():
        return []
    for line in report.read_text(encoding="utf-8", errors="replace").split("\n"):
        try:
            row = jsonsafe.loads(line, max_bytes=jsonsafe.MAX_ROW_BYTES)
        except ValueError:   # a line cut by a kill, or a row the code under test wrote too large or deep
            continue
        if not isinstance(row, dict):
            continue
        outcome, message = str(row.get("outcome")), str(row.get("message", ""))
        if outcome == "failed" and "Timeout (>" in message:
            outcome = "timeout"
        latest[str(row.get("id"))] = TestOutcome(str(row.get("id")), outcome, message)
    return list(latest.values())


def _shadowed(out: Path) -> str:
    """Why the run tested another copy of the project (`shadowed.json` of the report plugin), or ""."""
    try:
        rows = jsonsafe.load_file(out / "shadowed.json", max_bytes=jsonsafe.MAX_TOOL_JSON_BYTES)
    except (OSError, UnicodeDecodeError, ValueError):
        return ""
    found = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    if not found:
        return ""
    first = found[0]
    return (f"the tests imported {first.get('module')} from {first.get('file')}, a copy outside the tree under "
            "review, so they did not test the change: install the project editable (pip install -e .) in the "
            "environment the review uses, or remove the installed copy")


class PytestRunner:
    name: ClassVar[str] = "pytest"
    suffixes: ClassVar[tuple[str, ...]] = (".py",)
    per_file: ClassVar[bool] = False

    def claims(self, tree: Path, file: str) -> bool:
        return True

    def collect(self, tree: Path, policy: Policy, env: ProjectEnv) -> Collection:
        """pytest's collection of `tree`: its test files, and the files (or projects) that failed to collect."""
        return collect(tree, policy, env)

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        return list(collect(tree, policy, env).files)

    def project(self, tree: Path, file: str) -> str:
        """The project a test file runs in (one process per project): a monorepo package, or the root ("")."""
        return project_of(tree, file)

    def prepare(self, out: Path) -> None:
        prepare_out(out)

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        # In the project's directory (all targets share it: `project`), with absolute targets. A file that
        # fails to collect is its own error row; the other targets still run.
        argv = pytest_argv(env, policy, "--continue-on-collection-errors", "--", *(f"{{root}}/{t}" for t in targets))
        return Command(argv, pytest_env(env), cwd=self.project(tree, targets[0].split("::", 1)[0]))

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        shadow = _shadowed(out)
        if shadow:   # what ran was another copy of the project: no outcome of it says anything about the tree
            return [TestOutcome(f, "error", shadow) for f in dict.fromkeys(t.split("::", 1)[0] for t in targets)]
        return [o for o in read_pytest_report(out) if requested(o.test, targets)]

    def describe(self, out: Path, env: ProjectEnv) -> str:
        """Which pytest ran, from which environment; and, when a test could not import a module, that nothing
        is installed during a review."""
        about = about_run(out, env)
        if about and any(m in o.message for o in read_pytest_report(out) for m in _MISSING):
            about += ("; a module the tests import is not installed in that environment (nothing is installed "
                      "during a review: name an environment that has it with --python)")
        return about
