"""pytest, with showcause's reporter plugin writing one JSON row per outcome."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

from showcause.core import jsonsafe
from showcause.sandbox.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.base import Command, TestOutcome
from showcause.tools.runners.globs import discover_tests

__all__ = ["PytestRunner", "read_pytest_report", "requested"]


def requested(test: str, targets: list[str]) -> bool:
    return any(test == t or test.startswith((t + "::", t + "[")) for t in targets)


def read_pytest_report(out: Path) -> list[TestOutcome]:
    latest: dict[str, TestOutcome] = {}
    report = out / "report.jsonl"
    if not report.is_file():
        return []
    for line in report.read_text(encoding="utf-8", errors="replace").splitlines():
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


class PytestRunner:
    name: ClassVar[str] = "pytest"
    suffixes: ClassVar[tuple[str, ...]] = (".py",)
    per_file: ClassVar[bool] = False

    def claims(self, tree: Path, file: str) -> bool:
        return True

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        return discover_tests(tree, tuple(g for g in policy.tests.discover if g.endswith(self.suffixes)))

    def prepare(self, out: Path) -> None:
        shutil.copy(Path(__file__).with_name("_pytest_report.py"), out / "_pytest_report.py")

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        argv = [env.python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "pytest_timeout", "-p",
                "_pytest_report", "-q", "--rootdir={root}", f"--timeout={policy.process.test_timeout_s}",
                "-o", "console_output_style=classic", "--", *targets]
        # Only the plugins named here load: the harness's own environment must not shape the project's tests
        # (and skipping entry-point discovery halves pytest's start-up).
        path = ":".join(["{out}", *(f"{{root}}/{p}" for p in env.pythonpath)])
        return Command(argv, {"SHOWCAUSE_REPORT": "{out}/report.jsonl", "PYTHONPATH": path,
                              "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        return [o for o in read_pytest_report(out) if requested(o.test, targets)]
