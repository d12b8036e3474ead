"""`node --test`, one process per test file, read back from its junit reporter."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from showcause.core import jsonsafe
from showcause.core.hostproc import which
from showcause.sandbox.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.base import Command, TestOutcome
from showcause.tools.runners.globs import discover_tests
from showcause.tools.runners.jsproject import NODE_ADDRESS_MB, project_for

__all__ = ["NodeTestRunner", "read_junit"]


def _junit_case(case: ET.Element, prefix: str, file: str) -> TestOutcome:
    name = f"{prefix}{case.get('name', '')}"
    failure = case.find("failure")
    if case.find("skipped") is not None:
        outcome, msg = "skipped", ""
    elif failure is not None:
        msg = failure.get("message", "") or ""
        kind = failure.get("type", "")
        lowered = kind.lower()
        outcome = ("timeout" if "timeout" in lowered or "timed out" in msg else
                   "error" if lowered in ("hookfailure", "uncaughtexception", "cancelledbyparent")
                   else "failed")
    else:
        outcome, msg = "passed", ""
    first = html.unescape(msg).strip().splitlines()[0][:300] if msg.strip() else ""
    return TestOutcome(f"{file}::{name}", outcome, first)


def _walk_junit(root: ET.Element, file: str) -> list[TestOutcome]:
    """Every testcase, named by its suites ("suite > case"), in document order; none at all when suites
    nest deeper than jsonsafe's cap. Iterative and capped: the code under test can write this file."""
    acc: list[TestOutcome] = []
    stack: list[tuple[Iterator[ET.Element], str]] = [(iter(root), "")]
    while stack:
        children, prefix = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif child.tag == "testsuite":
            if len(stack) > jsonsafe.MAX_DEPTH:
                return []
            stack.append((iter(child), f"{prefix}{child.get('name', '')} > "))
        elif child.tag == "testcase":
            acc.append(_junit_case(child, prefix, file))
    return acc


def read_junit(out: Path, file: str) -> list[TestOutcome]:
    path = out / "junit.xml"
    if not path.is_file():
        return []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return []
    return _walk_junit(root, file)


class NodeTestRunner:
    name: ClassVar[str] = "node"
    suffixes: ClassVar[tuple[str, ...]] = (".js", ".mjs", ".cjs")
    per_file: ClassVar[bool] = True

    def claims(self, tree: Path, file: str) -> bool:
        # The fallback: a file of a project whose package.json names jest, vitest or mocha is theirs.
        return project_for(tree, file).runner in (None, "node")

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        return discover_tests(tree, tuple(g for g in policy.tests.discover if g.endswith(self.suffixes)))

    def prepare(self, out: Path) -> None:
        (out / "junit.xml").unlink(missing_ok=True)

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        node = which("node") or "/usr/bin/node"
        file = targets[0].split("::", 1)[0]
        return Command([node, "--test", f"--test-timeout={1000 * policy.process.test_timeout_s}",
                        "--test-reporter=junit", "--test-reporter-destination={out}/junit.xml",
                        "--test-reporter=dot", "--test-reporter-destination=stdout", "--", file], {},
                       address_mb=NODE_ADDRESS_MB)

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        file = targets[0].split("::", 1)[0]
        wanted = {t for t in targets if "::" in t}
        whole = any("::" not in t for t in targets)
        return [o for o in read_junit(out, file) if whole or o.test in wanted]

    def reported(self, out: Path, file: str) -> bool:
        # node names a file that did not load or exited early in its junit report, so any report is its own.
        try:
            ET.parse(out / "junit.xml")
        except (OSError, ET.ParseError):
            return False
        return True
