"""The truth of a change: the project's own test command, run whole on base and on head in the sandbox.

It shares no code with the review's test adapters (no runner registry, no selection, no report parser of
theirs): the project's command from the corpus, with its runner's own machine-readable reporter added
(pytest's JUnit XML, a unittest result written by a few lines here, jest's and vitest's JSON, mocha's JSON,
node's JUnit reporter), parsed here. Only the sandbox and the project's environment are showcause's, so the
truth runs exactly where and with what the review's tests run.

A test counts as broken when it passed in every base run and, in every head run, failed or went missing
while the change did not remove it (a module that no longer imports takes its tests with it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from .projects import Project

__all__ = ["Outcomes", "SuiteRun", "broken", "differs", "run_suite"]

Outcomes = dict[str, str]   # test id -> passed | failed | skipped

_UNITTEST = """\
import inspect, json, os, sys, unittest
out = sys.argv.pop(1)
sys.path[0] = os.getcwd()   # as `python -m unittest` has it
results = {}
def ident(test):
    # file::Class::method, the spelling pytest gives the same test (a doctest: doctest::its name)
    doc = getattr(test, "_dt_test", None)
    if doc is not None:
        return "doctest::" + doc.name
    method = getattr(test, "_testMethodName", None)
    try:
        file = inspect.getfile(type(test))
    except TypeError:
        return test.id()
    if not method or not file.startswith(os.getcwd()):
        return test.id()
    return "::".join([os.path.relpath(file), *type(test).__qualname__.split("."), method])
class Result(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test); results[ident(test)] = "passed"
    def addFailure(self, test, err):
        super().addFailure(test, err); results[ident(test)] = "failed"
    def addError(self, test, err):
        super().addError(test, err); results[ident(test)] = "failed"
    def addSkip(self, test, reason):
        super().addSkip(test, reason); results[ident(test)] = "skipped"
    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err); results[ident(test)] = "passed"
    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test); results[ident(test)] = "failed"
class Runner(unittest.TextTestRunner):
    resultclass = Result
try:
    unittest.main(module=None, testRunner=Runner, exit=False)
finally:
    with open(out, "w") as fh:
        json.dump(results, fh)
"""


@dataclass(frozen=True)
class SuiteRun:
    outcomes: Outcomes
    seconds: float
    returncode: int | None
    error: str = ""          # why no outcomes could be read


_JEST = """\
const path = require('path');
const args = process.argv.slice(2);
process.argv.splice(2);
const jest = require(require.resolve('jest', { paths: [process.cwd()] }));
jest.run([...args, '--json', '--outputFile=' + path.join(__dirname, 'truth.json'), '--ci', '--watchAll=false']);
"""


def _argv(project: Project, python: str) -> tuple[list[str], str]:
    """The command with its reporter; the report's file name inside the out folder."""
    cmd = list(project.command)
    if cmd[0] == "python":
        cmd[0] = python
    if project.runner == "pytest":
        # A module that no longer imports stops pytest at collection, and then no test has an outcome: go on,
        # so each test says whether it broke and the module's collection error is the failure it is.
        return [*cmd, "-p", "no:cacheprovider", "-o", "junit_family=xunit1", "--continue-on-collection-errors",
                "--junitxml={out}/truth.xml"], "truth.xml"
    if project.runner == "unittest":   # `python -m unittest ARGS` -> our result writer with the same ARGS
        rest = cmd[cmd.index("unittest") + 1 :]
        return [cmd[0], "{out}/oracle_unittest.py", "{out}/truth.json", *rest], "truth.json"
    bin_ = f"{{root}}/{project.cwd + '/' if project.cwd else ''}node_modules/.bin/"
    tool = bin_ + cmd[0] if not cmd[0].startswith(("/", "node")) else cmd[0]
    if project.runner == "jest":
        # Through a wrapper that hands jest its arguments directly: a test run in band reads process.argv
        # (commander's tests parse it), which must hold no option of ours, as under the project's own `jest`.
        return ["node", "{out}/oracle_jest.js", *cmd[1:]], "truth.json"
    if project.runner == "vitest":
        return [tool, *cmd[1:], "--reporter=json", "--outputFile={out}/truth.json"], "truth.json"
    if project.runner == "mocha":
        return [tool, *cmd[1:], "--reporter", "json", "--reporter-option", "output={out}/truth.json"], "truth.json"
    if project.runner == "node-test":
        return [*cmd, "--test-reporter=junit", "--test-reporter-destination={out}/truth.xml"], "truth.xml"
    raise SystemExit(f"{project.name}: unknown runner {project.runner!r}")


def _junit(path: Path, root: Path) -> Outcomes:
    out: Outcomes = {}
    for case, suites in _cases(ET.parse(path).getroot(), []):
        name, file, cls = case.get("name", ""), case.get("file", ""), case.get("classname", "")
        if file:   # pytest: classname is the module's dotted path, then the classes
            module = file.removesuffix(".py").replace("/", ".")
            classes = cls[len(module) + 1 :] if cls.startswith(module) else ""
            test = "::".join(p for p in (file, *classes.split("."), name) if p)
        else:      # node: classname is always "test"; the enclosing suites (describe) are the title path
            test = f"{file_of_node(case)}::{' > '.join([*suites, name])}"
        if case.find("failure") is not None or case.find("error") is not None:
            out[test] = "failed"
        elif case.find("skipped") is not None:
            out.setdefault(test, "skipped")
        else:
            out.setdefault(test, "passed")
    return out


def _cases(element: ET.Element, suites: list[str]) -> list[tuple[ET.Element, list[str]]]:
    """Every testcase with the names of the testsuites around it (node: its describe blocks; pytest's one
    suite is never used, its cases name their file)."""
    found: list[tuple[ET.Element, list[str]]] = []
    for child in element:
        if child.tag == "testcase":
            found.append((child, suites))
        elif child.tag == "testsuite":
            found += _cases(child, [*suites, child.get("name", "")])
    return found


def file_of_node(case: ET.Element) -> str:
    """node's JUnit reporter names no file: the case's `file` attribute where a version writes one."""
    return case.get("file", "")


def _json(path: Path, runner: str, root: str) -> Outcomes:
    doc = json.loads(path.read_text(encoding="utf-8"))
    out: Outcomes = {}
    if runner == "unittest":
        return dict(doc)
    if runner in ("jest", "vitest"):
        for suite in doc.get("testResults", []):
            file = str(suite.get("name", "")).removeprefix(root + "/")
            for test in suite.get("assertionResults", []):
                status = {"passed": "passed", "failed": "failed"}.get(test.get("status"), "skipped")
                out[f"{file}::{' > '.join([*test.get('ancestorTitles', []), test.get('title', '')])}"] = status
            if suite.get("status") == "failed" and not suite.get("assertionResults"):
                out[file] = "failed"
        return out
    for kind, outcome in (("passes", "passed"), ("failures", "failed"), ("pending", "skipped")):   # mocha
        for test in doc.get(kind, []):
            out[f"{str(test.get('file', '')).removeprefix(root + '/')}::{test.get('fullTitle')}"] = outcome
    return out


FILE_FILTERS = ("jest", "vitest")   # runners whose command takes test files to run only those


def run_suite(project: Project, repo: Path, ref: str, venv: Path | None, timeout_s: float = 1800,
              files: tuple[str, ...] = ()) -> SuiteRun:
    """The project's whole suite on `ref`, in the sandbox, with its environment; with `files` (a runner of
    FILE_FILTERS), the same command given those test files, so that it runs only them."""
    from showcause.policy import load_policy
    from showcause.sandbox.nodeenv import node_mounts
    from showcause.sandbox.projectenv import resolve_env
    from showcause.sandbox.runner import run_sandboxed

    with tempfile.TemporaryDirectory(prefix="oracle-") as tmp:
        work, out = Path(tmp) / "ws", Path(tmp) / "out"
        work.mkdir()
        out.mkdir()
        archive = subprocess.run(["git", "-C", str(repo), "archive", ref], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
        (out / "oracle_unittest.py").write_text(_UNITTEST, encoding="utf-8")
        (out / "oracle_jest.js").write_text(_JEST, encoding="utf-8")
        env = resolve_env(repo, python=venv / "bin" / "python" if venv else None,
                          extra=node_mounts(repo, (work,)))
        argv, report = _argv(project, env.python)
        argv += [f"{{root}}/{f}" for f in files]
        policy = load_policy({"process": {"timeout_s": timeout_s, "max_output_bytes": 1 << 20}})
        started = time.monotonic()
        # node reserves far more address space than it uses (WebAssembly's guard regions: vitest, fetch); the
        # trap handler off, it fits the sandbox's address limit, which is raised as the review's node runs have it.
        node = project.language != "python"
        done = run_sandboxed(argv, workspace=work, out_dir=out, policy=policy, memory_mb=4096,
                             timeout_s=timeout_s, mounts=env.mounts, cwd=project.cwd,
                             env={"NODE_OPTIONS": "--disable-wasm-trap-handler"} if node else None,
                             address_mb=16384 if node else None)
        seconds = time.monotonic() - started
        path = out / report
        start = done.stdout.find("\n{")   # mocha before 9.1 has no `output` option: its JSON is on stdout
        if not path.is_file() and project.runner == "mocha" and (done.stdout.startswith("{") or start >= 0):
            path.write_text(done.stdout[0 if done.stdout.startswith("{") else start + 1 :], encoding="utf-8")
        if not path.is_file():
            tail = (done.stdout + done.stderr)[-600:]
            return SuiteRun({}, seconds, done.returncode, f"no report (rc {done.returncode}): {tail}")
        try:
            outcomes = _junit(path, work) if report.endswith(".xml") else _json(path, project.runner, done.root)
        except (ET.ParseError, json.JSONDecodeError, OSError) as exc:
            return SuiteRun({}, seconds, done.returncode, f"unreadable report: {exc}")
        shutil.rmtree(work, ignore_errors=True)
        return SuiteRun(outcomes, seconds, done.returncode)


def broken(base: list[SuiteRun], head: list[SuiteRun], removed: tuple[str, ...]) -> set[str]:
    """Tests that passed in every base run and failed or went missing in every head run (not removed), and
    tests new on head that failed in every head run (a change whose own new test fails is broken)."""
    passing = set.intersection(*({t for t, o in run.outcomes.items() if o == "passed"} for run in base))
    known = set().union(*(run.outcomes for run in base))
    out = {t for t in set.intersection(*(set(run.outcomes) for run in head)) - known
           if all(run.outcomes[t] == "failed" for run in head)}
    for test in passing:
        outcomes = [run.outcomes.get(test, "missing") for run in head]
        if all(o == "missing" for o in outcomes) and any(_removes(r, test) for r in removed):
            continue
        if all(o in ("failed", "missing") for o in outcomes):
            out.add(test)
    return out


def _removes(removed: str, test: str) -> bool:
    """Whether a removed test id accounts for a test gone from head: the same id (any parameters), or the same
    method name in the same file (a method deleted from a mixin or base class is gone from every subclass)."""
    if test == removed or test.startswith(removed + "["):
        return True
    if not removed.split("::", 1)[0].endswith(".py"):
        from .jstests import removes_js

        return removes_js(removed, test)
    file, name = removed.split("::", 1)[0], removed.rsplit("::", 1)[-1]
    return test.split("::", 1)[0] == file and test.split("[", 1)[0].rsplit("::", 1)[-1] == name


def differs(base: list[SuiteRun], head: SuiteRun) -> bool:
    """Whether any test's outcome on head differs from base (then head runs twice more)."""
    first = base[0].outcomes
    return any(head.outcomes.get(t) != o for t, o in first.items()) or bool(set(head.outcomes) - set(first))
