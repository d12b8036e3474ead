"""`node --test`: the test files of a package share one process (node 20.10 and later: one file after another,
each in a child process of its own as node runs them), read back file by file from showcause's reporter
(`_node_report.mjs`: a JSON line per test with its file); an older node runs one process per file, read back
from its junit reporter. Both name a test by its suites' names, nested as node's junit nests them."""

from __future__ import annotations

import html
import shutil
import stat
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

from showcause.core import jsonsafe
from showcause.core.hostproc import which
from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.toolchain import node_test_batches
from showcause.tools.runners.base import Command, TestOutcome
from showcause.tools.runners.globs import discover_tests
from showcause.tools.runners.jsproject import NODE_ADDRESS_MB, project_for
from showcause.tools.runners.jsreport import target_files, wanted
from showcause.tools.runners.node_script import node_options, script_tests

__all__ = ["NodeTestRunner", "read_junit", "read_report"]


_REPORTER = Path(__file__).with_name("_node_report.mjs")


def _failure(kind: str, msg: str) -> str:
    """The outcome of a failed test by node's failure type: a timeout, an error around the test (a hook, an
    uncaught exception, cancelled with its parent), else a failure of the test itself."""
    lowered = kind.lower()
    return ("timeout" if "timeout" in lowered or "timed out" in msg else
            "error" if lowered in ("hookfailure", "uncaughtexception", "cancelledbyparent") else "failed")


def _junit_case(case: ET.Element, prefix: str, file: str) -> TestOutcome:
    name = f"{prefix}{case.get('name', '')}"
    failure = case.find("failure")
    if case.find("skipped") is not None:
        outcome, msg = "skipped", ""
    elif failure is not None:
        msg = failure.get("message", "") or ""
        outcome = _failure(failure.get("type", ""), msg)
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


def _rows(out: Path) -> tuple[list[dict[str, object]], bool] | None:
    """The reporter's lines and whether the run ended; None without its report (a junit run). A batch's
    report is read once for all its files (kept while the file is the same)."""
    path = out / "node.jsonl"
    try:
        st = path.stat()
    except OSError:
        return None
    return _parsed(str(path), st.st_ino, st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


@lru_cache(maxsize=8)
def _parsed(path: str, *_signature: int) -> tuple[list[dict[str, object]], bool]:
    """Capped: the code under test can write this file."""
    rows: list[dict[str, object]] = []
    ended = False
    for line in Path(path).read_text(encoding="utf-8", errors="replace").split("\n")[:100_000]:   # U+2028 stays raw
        try:
            row = jsonsafe.loads(line, max_bytes=64_000)
        except ValueError:   # a line the code under test wrote, or cut by a kill
            continue
        if isinstance(row, dict):
            ended = ended or row.get("end") is True
            rows.append(row)
    return rows, ended


def _is(at: object, file: str) -> bool:
    return isinstance(at, str) and (at == file or at.endswith("/" + file))


def _mine(row: dict[str, object], file: str) -> bool:
    return _is(row.get("file"), file)


def _whole(rows: list[dict[str, object]], file: str) -> bool:
    """`file` started in the batch and its tests say so: none of them was defined in another test file the batch
    started, nor any test defined in it reported under another (the order node reports in, which the reporter
    follows, would then not be the order it ran in)."""
    started = {str(r["start"]) for r in rows if isinstance(r.get("start"), str)}
    if not any(_is(at, file) for at in started):
        return False
    for row in rows:
        here, defined = _mine(row, file), _is(row.get("defined"), file)
        if (here and not defined and row.get("defined") in started) or (defined and not here and "file" in row):
            return False
    return True


def _reported(row: dict[str, object], file: str) -> TestOutcome | None:
    path = row.get("path")
    if not isinstance(path, list) or not path:
        return None
    msg = str(row.get("message") or "")[:300]
    outcome = ("skipped" if row.get("skipped") else _failure(str(row.get("type") or ""), msg) if row.get("failed")
               else "passed")
    return TestOutcome(f"{file}::{' > '.join(str(p) for p in path)}", outcome, msg if outcome != "passed" else "")


def read_report(out: Path, file: str) -> list[TestOutcome]:
    """The tests of `file` in the run's report (showcause's reporter, else junit)."""
    found = _rows(out)
    if found is None:
        return read_junit(out, file)
    return [o for row in found[0] if _mine(row, file) and (o := _reported(row, file)) is not None]


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
        """The policy's globs, and what each package's own `node --test` runs (scripts.test: node's naming
        convention, or the paths it names)."""
        own = discover_tests(tree, tuple(g for g in policy.tests.discover if g.endswith(self.suffixes)))
        return sorted({*own, *(f for f in script_tests(tree) if f.endswith(self.suffixes))})

    def prepare(self, out: Path) -> None:
        shutil.copy(_REPORTER, out / _REPORTER.name)
        for name in ("junit.xml", "node.jsonl"):
            (out / name).unlink(missing_ok=True)

    def batch_key(self, tree: Path, file: str, env: ProjectEnv) -> str | None:
        """The process a file may share: its package's, where this node runs files one after another."""
        return project_for(tree, file).dir if node_test_batches(_node()) else None

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        node = _node()
        files = target_files(targets)
        project = project_for(tree, files[0])
        # The script's own node options (`--conditions development`): how its tests load, as its run loads them.
        flags = node_options(project.args) if project.runner == "node" else []
        limit = f"--test-timeout={1000 * policy.process.test_timeout_s}"
        dots = ["--test-reporter=dot", "--test-reporter-destination=stdout"]
        if not node_test_batches(node):   # one file, read from junit
            return Command([node, *flags, "--test", limit, "--test-reporter=junit",
                            "--test-reporter-destination={out}/junit.xml", *dots, "--", files[0]], {},
                           address_mb=NODE_ADDRESS_MB)
        return Command([node, *flags, "--test", "--test-concurrency=1", limit,
                        f"--test-reporter={{out}}/{_REPORTER.name}", "--test-reporter-destination={out}/node.jsonl",
                        *dots, "--", *files], {},
                       address_mb=NODE_ADDRESS_MB)

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        return wanted([o for f in target_files(targets) for o in read_report(out, f)], targets)

    def reported(self, out: Path, file: str) -> bool:
        # node names a file that did not load or exited early in its report, so any report is its own.
        found = _rows(out)
        if found is not None:
            return found[1]
        try:
            ET.parse(out / "junit.xml")
        except (OSError, ET.ParseError):
            return False
        return True

    def ran_whole(self, out: Path, file: str) -> bool:
        """Each file runs in a child process of its own, in a batch as alone: any test of it is its whole run."""
        found = _rows(out)
        return found is not None and found[1] and _whole(found[0], file)


def _node() -> str:
    return which("node") or "/usr/bin/node"
