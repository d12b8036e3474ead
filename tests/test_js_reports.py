"""Each test file's run reads only its own report (real jest and mocha, through `run_tests` in the sandbox).

Found on commander.js: a test that parses process.argv (`program.parse()`) ran inside jest's process and met
showcause's options (`error: unknown option '--ci'`), so jest exited before writing its report; the file came
back without a result, explained by the end of the merged output, which named another file. Now the tests see
the argv a plain `jest` or `mocha` gives them; a file whose process writes no report for it is an error of
that file with that process's own last lines; and every process has a report dir of its own, so nothing an
earlier file's process left there is read as, or stands in the way of, a later one's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jsfixtures import js_modules, js_repo
from showcause.policy import load_policy
from showcause.service.inputs import tool_context
from showcause.snapshot import from_git
from showcause.tools import testexec

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

# A CLI library's test: any option in argv that it does not know ends the process, as commander's does.
ARGV_CHECK = ("  const extra = process.argv.slice(2);\n"
              "  if (extra.length) { console.error(`error: unknown option '${extra[0]}'`); process.exit(1); }\n")

JEST = {
    "package.json": '{"name": "cli", "private": true, "scripts": {"test": "jest"},\n'
                    ' "devDependencies": {"jest": "29.7.0"}}\n',
    "t/argv.test.js": f"test('parses its own argv', () => {{\n{ARGV_CHECK}}});\n",
    "t/exits.test.js": "console.error('exits at load');\nprocess.exit(3);\n",
    # The out dir is /out at both levels that hide the host; a directory where the next file's report goes.
    "t/leaves.test.js": "const fs = require('fs');\n"
                        "test('leaves', () => { fs.mkdirSync('/out/jest.json/x', { recursive: true }); });\n",
    "t/other.test.js": "test('other', () => { expect(2).toBe(2); });\n",
    "t/after.test.js": "test('after', () => { expect(1).toBe(1); });\n",
}

MOCHA = {
    "package.json": '{"name": "cli", "private": true, "scripts": {"test": "mocha"},\n'
                    ' "devDependencies": {"mocha": "10.8.2"}}\n',
    "test/argv.js": f"describe('cli', () => {{ it('parses its own argv', () => {{\n{ARGV_CHECK}}}); }});\n",
}


@pytest.fixture(scope="module")
def modules() -> Path:
    return js_modules()


def _run(repo: Path, files: list[str]) -> list[testexec.TestOutcome]:
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        run = testexec.run_tests(snap.head, files, load_policy(), env=tool_context(snap).env)
    return list(run.outcomes)


@pytest.mark.parametrize(("project", "file", "test_id"), [
    (JEST, "t/argv.test.js", "t/argv.test.js::parses its own argv"),
    (MOCHA, "test/argv.js", "test/argv.js::cli > parses its own argv"),
], ids=["jest", "mocha"])
def test_a_test_that_parses_process_argv_sees_the_runners_own(project: dict[str, str], file: str, test_id: str,
                                                              modules: Path, tmp_path: Path):
    repo = js_repo(tmp_path / "cli", project, {"README.md": "x\n"}, modules)
    assert [(o.test, o.outcome) for o in _run(repo, [file])] == [(test_id, "passed")]


def test_each_file_reads_only_its_own_report(modules: Path, tmp_path: Path):
    """Five files over the two copies that run at once (the first, third and fifth in one, in order): one
    exits at load, one leaves a directory where the next file's report goes; every other file still gets its
    own result, and each failure is said with its own process's output."""
    repo = js_repo(tmp_path / "cli", JEST, {"README.md": "x\n"}, modules)
    files = ["t/argv.test.js", "t/exits.test.js", "t/leaves.test.js", "t/other.test.js", "t/after.test.js"]
    rows = {o.test: o for o in _run(repo, files)}
    assert sorted((t, o.outcome) for t, o in rows.items()) == [
        ("t/after.test.js::after", "passed"), ("t/argv.test.js::parses its own argv", "passed"),
        ("t/exits.test.js", "error"), ("t/leaves.test.js", "error"), ("t/other.test.js::other", "passed")]
    exits, leaves = rows["t/exits.test.js"].message, rows["t/leaves.test.js"].message
    assert exits.startswith("jest reported nothing for this file (exit 3): ") and "exits at load" in exits
    assert 'process.exit called with "3"' in exits
    assert "EISDIR" in leaves and "/out/jest.json" in leaves
    for message in (exits, leaves):
        assert not any(other in message for other in ("argv.test", "other.test", "after.test"))


TDD = {
    "package.json": '{"name": "flat", "private": true, "scripts": {"test": "mocha -u tdd --reporter spec"},\n'
                    ' "devDependencies": {"mocha": "10.8.2"}}\n',
    "test/test.js": "const assert = require('assert');\nsuite('Flatten', () => {\n"
                    "  test('Nested once', () => { assert.equal(1 + 1, 2); });\n});\n",
    "test/broken.js": "require('./nowhere');\n",
}


def test_mocha_takes_the_interface_scripts_test_names_and_a_file_that_does_not_load_ran_nothing(
        modules: Path, tmp_path: Path):
    """flat runs `mocha -u tdd`: its `suite` and `test` exist only under that interface (found by the oracle:
    without it the file failed to load on both trees and the review said KEEP)."""
    repo = js_repo(tmp_path / "flat", TDD, {"README.md": "x\n"}, modules)
    assert [(o.test, o.outcome) for o in _run(repo, ["test/test.js"])] == [
        ("test/test.js::Flatten > Nested once", "passed")]
    [(test, outcome)] = [(o.test, o.outcome) for o in _run(repo, ["test/broken.js"])]
    assert (test, outcome) == ("test/broken.js", "error")


def test_a_mocha_title_with_a_line_separator_is_read(modules: Path, tmp_path: Path):
    """JSON.stringify leaves U+2028 in a title raw; a reader that split the report at it lost the test."""
    files = {**MOCHA, "test/sep.js": ("describe('s', () => {\n  it('line\u2028separator', () => {});\n"
                                      "  it('plain', () => {});\n});\n")}
    repo = js_repo(tmp_path / "sep", files, {"README.md": "x\n"}, modules)
    assert [(o.test, o.outcome) for o in _run(repo, ["test/sep.js"])] == [
        ("test/sep.js::s > line\u2028separator", "passed"), ("test/sep.js::s > plain", "passed")]
