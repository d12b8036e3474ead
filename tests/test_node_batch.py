"""The `node --test` files of one package share one node process (real node in the sandbox, through
`run_tests`): one file after another, each still in a child process of its own as node runs it, read back file
by file from showcause's reporter, with the test ids a file's own run gives.

Found on fast-json-stringify: one sandboxed node per test file made a review of its 65 files take ~50 s where
its own `node --test` takes ~13 s."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.core.hostproc import which
from showcause.policy import load_policy
from showcause.sandbox.toolchain import node_test_batches
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review
from showcause.tools import testexec

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

HEAD = "const {describe, it, test} = require('node:test');\nconst assert = require('node:assert');\n"
GOOD = {f"test/good{i}.test.js": HEAD + f"describe('g{i}', () => {{ it('ok', () => assert.equal({i}, {i})); }});\n"
        for i in range(6)}
SHAPES = {
    "test/shapes.test.js": HEAD + (
        "describe('outer', () => {\n  it('fails', () => { assert.strictEqual(1, 2, 'one is not two'); });\n"
        "  describe('inner', () => { it('deep', () => {}); it.skip('skipped', () => {}); });\n"
        "  it('slow', { timeout: 50 }, async () => { await new Promise((r) => setTimeout(r, 2000)); });\n});\n"
        "test('parent', async (t) => { await t.test('child', () => {}); });\n"
        # JSON.stringify leaves U+2028 raw: a reader splitting lines at it lost this test.
        "test('line\u2028separator', () => {});\n"),
    "test/loadfails.test.js": "throw new Error('cannot load');\n",
    "test/exits.test.js": HEAD + "test('before', () => {});\ntest('exits', () => { process.exit(0); });\n",
    # Tests a helper module defines: node says they come from the helper; they ran in the file that called it.
    "test/usehelper.test.js": "require('./helper.js')('from helper');\n",
}
HELPER = {"test/helper.js": HEAD + ("module.exports = (name) => test(name, async (t) => {\n"
                                   "  await t.test('inner', () => {});\n});\n")}


def _run(tmp_path: Path, files: dict[str, str]) -> dict[str, tuple[str, str]]:
    case = make_case(tmp_path / "c", {"package.json": '{"name": "p", "private": true}\n', **HELPER, **files},
                     {"README.md": "x\n"}, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        run = testexec.run_tests(snap.head, sorted(files), load_policy(), env=tool_context(snap).env)
    return {o.test: (o.outcome, o.message) for o in run.outcomes}


def _files(argv: tuple[str, ...]) -> list[str]:
    return [a for a in argv[argv.index("--") + 1:]] if "--" in argv else []


def test_the_files_of_a_package_share_a_node_process(tmp_path: Path, started: list[tuple[str, ...]]):
    assert node_test_batches(which("node") or "/usr/bin/node")   # node 20.10 and later, as on these hosts
    rows = _run(tmp_path, GOOD)
    assert rows == {f"test/good{i}.test.js::g{i} > ok": ("passed", "") for i in range(6)}
    assert sorted(len(_files(argv)) for argv in started) == [3, 3]
    assert all("--test-concurrency=1" in argv for argv in started)


def test_each_file_of_a_batch_gets_the_result_it_gets_alone(tmp_path: Path, started: list[tuple[str, ...]]):
    rows = _run(tmp_path, {**SHAPES, **dict(list(GOOD.items())[:1])})
    # A file that fails to load, and one whose test ends its process (node then reports the file, as in its own
    # junit report), are named by their path in the sandbox.
    whole = {t.split("::", 1)[0]: v for t, v in rows.items() if t.endswith(".test.js") and "/" in t.split("::")[1]}
    assert whole == {"test/loadfails.test.js": ("failed", "test failed"), "test/exits.test.js": ("passed", "")}
    assert {t: v for t, v in rows.items() if t.split("::", 1)[0] not in whole} == {
        "test/shapes.test.js::outer > fails": ("failed", "one is not two"),
        "test/shapes.test.js::outer > inner > deep": ("passed", ""),
        "test/shapes.test.js::outer > inner > skipped": ("skipped", ""),
        "test/shapes.test.js::outer > slow": ("timeout", "test timed out after 50ms"),
        "test/shapes.test.js::parent > child": ("passed", ""),
        "test/shapes.test.js::line\u2028separator": ("passed", ""),
        "test/good0.test.js::g0 > ok": ("passed", ""),
        "test/usehelper.test.js::from helper > inner": ("passed", ""),
    }
    # Two batches, no file run again alone: a file's child process is its own in a batch as alone.
    assert sorted(len(_files(argv)) for argv in started) == [2, 3]


# remark's way: `node --conditions development --test` with no path runs `test.js` (node's convention, which
# the policy's globs do not hold), and its package resolves to the source only under that condition.
CONDITIONS = {
    "package.json": ('{"name": "pkg", "private": true, "scripts": {"test": "node --conditions development --test"},\n'
                     ' "exports": {".": {"development": "./dev.js", "default": "./built.js"}}}\n'),
    "dev.js": "exports.answer = () => 42;\n",
    "built.js": "exports.answer = () => 42;\n",
    "test.js": HEAD + "const { answer } = require('pkg');\ntest('answers', () => assert.equal(answer(), 42));\n",
}


def test_the_scripts_own_node_test_finds_its_files_and_loads_them_its_way(tmp_path: Path):
    """Found on remark: `test.js` was not found (KEEP: no tests), and `--conditions development` decides which
    file its package is."""
    case = make_case(tmp_path / "c", CONDITIONS, {"dev.js": "exports.answer = () => 41;\n"},
                     checks={"typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    assert [a.subject for c in result.claims for a in c.artifacts] == ["test.js::answers"]


def test_a_project_that_runs_tests_but_none_are_found_is_inconclusive(tmp_path: Path):
    """Its scripts.test runs a test runner, yet no file of it was found (a layout discovery does not know): the
    review could not look at the evidence, so it is INCONCLUSIVE with the fix, never a KEEP with a note."""
    files = {"package.json": '{"name": "p", "private": true, "scripts": {"test": "mocha spec/**/*.spec.js"}}\n',
             "lib.js": "exports.x = 1;\n"}
    case = make_case(tmp_path / "c", files, {"lib.js": "exports.x = 2;\n"}, checks={"typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "INCONCLUSIVE" and result.error is not None
    assert result.error["code"] == "PROBE_UNRUNNABLE"
    assert result.error["message"].startswith("scripts.test of package.json runs mocha, but no test file it runs")


def test_a_plain_node_script_of_node_test_tests_behind_npm_runs_is_found(tmp_path: Path):
    """remark's own scripts.test: `npm run build && … && npm run test-coverage`, which runs
    `c8 … npm run test-api`, which runs `node --conditions development test.js` — a plain node script of
    node:test tests, run as `node --test test.js` would run it."""
    package = ('{"name": "pkg", "private": true, "exports": {".": {"development": "./dev.js", "default": '
               '"./built.js"}},\n "scripts": {"test": "npm run build && npm run test-coverage", "build": "tsc",\n'
               ' "test-coverage": "c8 --100 npm run test-api", '
               '"test-api": "node --conditions development test.js"}}\n')
    case = make_case(tmp_path / "c", {**CONDITIONS, "package.json": package},
                     {"dev.js": "exports.answer = () => 41;\n"}, checks={"typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert result.verdict == "MODIFY"
    assert [a.subject for c in result.claims for a in c.artifacts] == ["test.js::answers"]


def test_what_follows_a_plain_node_script_is_the_script_s_own():
    """`node test.js --bail fixtures/` gives test.js its arguments: they are neither node's options (every test
    run would get them) nor more test paths; after `--test`, every path is one node runs."""
    from showcause.tools.runners.jsproject import split_node_args
    from showcause.tools.runners.node_script import node_options

    assert split_node_args(["--conditions", "development", "test.js", "--bail", "fixtures/"]) == (
        ["--conditions", "development"], ["test.js"])
    assert node_options(("--conditions", "development", "test.js", "--require", "x")) == ["--conditions", "development"]
    assert split_node_args(["--test", "--conditions", "dev", "a.test.js", "b.test.js", "--test-only"]) == (
        ["--test", "--conditions", "dev", "--test-only"], ["a.test.js", "b.test.js"])
    assert split_node_args(["--", "script.js", "--flag"]) == ([], ["script.js"])
    assert split_node_args(["--test", "--", "a.js", "--b.js"]) == (["--test"], ["a.js", "--b.js"])
