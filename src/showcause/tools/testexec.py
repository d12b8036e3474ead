"""How allowlisted tests are found, run (pytest or node --test) and read back, per test id."""

from __future__ import annotations

import html
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from showcause.core import jsonsafe
from showcause.core.errors import ToolArgumentError
from showcause.core.hostproc import which
from showcause.sandbox.paths import normalize_relpath
from showcause.sandbox.policy import Policy
from showcause.sandbox.runner import ProcResult, run_sandboxed
from showcause.sandbox.workspace import fresh_copy
from showcause.tools.basecache import cache_get, cache_put

__all__ = ["TestOutcome", "TestRun", "discover_tests", "glob_to_regex", "run_base_tests", "run_tests", "split_test_id"]

_PY = (".py",)
_JS = (".js", ".mjs", ".cjs")
_NODE_ADDRESS_MB = 16384   # address space only; real memory stays capped by the memory cgroup


def glob_to_regex(glob: str) -> re.Pattern[str]:
    """`**/` spans directories, `*` and `?` stay within one path segment."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def discover_tests(root: Path, globs: tuple[str, ...]) -> list[str]:
    patterns = [glob_to_regex(g) for g in globs]
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules", "__pycache__")
                             and not os.path.islink(os.path.join(dirpath, d)))
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if not os.path.islink(full) and any(p.match(rel) for p in patterns):
                found.append(rel)
    return sorted(found)


def split_test_id(raw: str) -> tuple[str, str | None]:
    """'tests/test_a.py::test_x' -> ('tests/test_a.py', 'test_x'); the file part is normalized."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolArgumentError("test must be a non-empty string")
    if raw.lstrip().startswith("-"):
        raise ToolArgumentError("test must be a test file or test id, not an option")
    file_part, sep, name = raw.strip().partition("::")
    rel = normalize_relpath(file_part.removeprefix("./"))
    if sep and (not name or any(ord(c) < 32 for c in name)):
        raise ToolArgumentError(f"malformed test id {raw!r}")
    return rel, (name if sep else None)


@dataclass(frozen=True)
class TestOutcome:
    test: str          # test id: path::name (path alone for a file-level error)
    outcome: str       # passed | failed | error | skipped | timeout
    message: str = ""


@dataclass(frozen=True)
class TestRun:
    outcomes: tuple[TestOutcome, ...]
    proc: ProcResult
    problem: str = ""  # why nothing usable came back (crash, timeout, missing runner)

    @property
    def complete(self) -> bool:
        """The run finished, so a test missing from its outcomes really does not exist there."""
        rc = self.proc.returncode
        # pytest: 0 ok, 1 failures, 4 id not found, 5 nothing collected; node: 0 or 1.
        return not self.proc.timed_out and rc is not None and (bool(self.outcomes) or rc in (0, 4, 5))


def _pytest(targets: list[str], policy: Policy) -> tuple[list[str], dict[str, str]]:
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "pytest_timeout", "-p", "_pytest_report",
            "-q",
            "--rootdir={root}", f"--timeout={policy.process.test_timeout_s}", "-o", "console_output_style=classic",
            "--", *targets]
    # Only the plugins named here load: the harness's own environment must not shape the project's tests
    # (and skipping entry-point discovery halves pytest's start-up).
    return argv, {"SHOWCAUSE_REPORT": "{out}/report.jsonl", "PYTHONPATH": "{out}",
                  "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _node(file: str, policy: Policy) -> list[str]:
    node = which("node") or "/usr/bin/node"
    return [node, "--test", f"--test-timeout={1000 * policy.process.test_timeout_s}", "--test-reporter=junit",
            "--test-reporter-destination={out}/junit.xml", "--test-reporter=dot",
            "--test-reporter-destination=stdout", "--", file]


def _read_pytest(out: Path) -> list[TestOutcome]:
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


def _read_junit(out: Path, file: str) -> list[TestOutcome]:
    path = out / "junit.xml"
    if not path.is_file():
        return []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return []
    return _walk_junit(root, file)


def _requested(test: str, targets: list[str]) -> bool:
    return any(test == t or test.startswith((t + "::", t + "[")) for t in targets)


def _merge(procs: list[ProcResult]) -> ProcResult:
    """One process result standing for several sequential runs (node runs one file per process)."""
    if len(procs) == 1:
        return procs[0]
    first = procs[0]
    failed = [p.returncode for p in procs if p.returncode]
    return ProcResult(argv=first.argv, returncode=None if any(p.timed_out for p in procs) else (failed[0] if failed
                      else 0), stdout="".join(p.stdout for p in procs)[-100_000:],
                      stderr="".join(p.stderr for p in procs)[-100_000:], timed_out=any(p.timed_out for p in procs),
                      truncated=any(p.truncated for p in procs), isolation=first.isolation,
                      seconds=sum(p.seconds for p in procs), root=first.root, out=first.out)


def run_tests(tree: Path, tests: str | list[str], policy: Policy, *, timeout_s: float | None = None) -> TestRun:
    """Run test files or test ids (all Python or all JavaScript) in one fresh copy of `tree`."""
    targets = [tests] if isinstance(tests, str) else list(tests)
    split = [split_test_id(t) for t in targets]
    kinds = {"py" if f.endswith(_PY) else "js" if f.endswith(_JS) else "?" for f, _ in split}
    if "?" in kinds:
        bad = next(f for f, _ in split if not f.endswith(_PY + _JS))
        raise ToolArgumentError(f"{bad}: no test runner for this file type (pytest for .py, node --test for .js)")
    if len(kinds) > 1:
        raise ToolArgumentError("run Python and JavaScript tests in separate calls")
    targets = [f"{f}::{n}" if n else f for f, n in split]
    outcomes: list[TestOutcome] = []
    with fresh_copy(tree) as dirs:
        if kinds == {"py"}:
            shutil.copy(Path(__file__).with_name("_pytest_report.py"), dirs.out / "_pytest_report.py")
            argv, env = _pytest(targets, policy)
            proc = run_sandboxed(argv, workspace=dirs.workspace, out_dir=dirs.out, policy=policy,
                                 memory_mb=policy.process.test_memory_mb, timeout_s=timeout_s, env=env)
            # The report file is written by the code under test: rows for anything not asked for are forged.
            outcomes = [o for o in _read_pytest(dirs.out) if _requested(o.test, targets)]
        else:
            procs = []
            for file in dict.fromkeys(f for f, _ in split):
                (dirs.out / "junit.xml").unlink(missing_ok=True)
                procs.append(run_sandboxed(_node(file, policy), workspace=dirs.workspace, out_dir=dirs.out,
                                           policy=policy, memory_mb=policy.process.test_memory_mb, timeout_s=timeout_s,
                                           address_mb=_NODE_ADDRESS_MB))
                wanted = {t for t, (f, n) in zip(targets, split, strict=True) if f == file and n}
                whole = any(f == file and not n for f, n in split)
                outcomes += [o for o in _read_junit(dirs.out, file) if whole or o.test in wanted]
            proc = _merge(procs)
    problem = ""
    rc = proc.returncode
    killed = rc is not None and (rc < 0 or rc in (128 + 9, 128 + 11))
    if proc.timed_out or killed:
        problem = (f"the run was killed after {proc.seconds:.0f} s (wall timeout)" if proc.timed_out
                   else f"the run was killed (exit {rc}: out of memory or a crash)")
        # Whatever had not reported when it was killed is charged to its target.
        for target, (file, name) in zip(targets, split, strict=True):
            if not any(o.test == target or (name is None and o.test.startswith(file + "::")) for o in outcomes):
                outcomes.append(TestOutcome(target, "timeout" if proc.timed_out else "error", problem))
    elif not outcomes:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        problem = f"no test results (exit {proc.returncode}): {' | '.join(tail)[:400]}"
    return TestRun(tuple(outcomes), proc, problem)


def run_base_tests(tree: Path, tests: list[str], policy: Policy) -> TestRun:
    """`run_tests` on a base tree, through the base cache (complete runs only)."""
    test = "\n".join(tests)
    hit = cache_get(tree, "run_tests", test, policy)
    if isinstance(hit, dict) and isinstance(hit.get("outcomes"), list):
        proc = ProcResult(argv=(), returncode=int(hit["returncode"]), stdout="", stderr="", timed_out=False,
                          truncated=False, isolation=str(hit["isolation"]), seconds=0.0, root="", out="",
                          notes=("from the base cache",))
        return TestRun(tuple(TestOutcome(*o) for o in hit["outcomes"]), proc)
    run = run_tests(tree, tests, policy)
    if run.complete:
        cache_put(tree, "run_tests", test, policy, {
            "outcomes": [[o.test, o.outcome, o.message] for o in run.outcomes],
            "returncode": run.proc.returncode, "isolation": run.proc.isolation})
    return run
