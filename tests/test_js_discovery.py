"""Which files are tests where a JavaScript project's config is code or says what only its runner reads
exactly: jest `--listTests`, `vitest list --filesOnly` and mocha's `loadOptions`, asked in the sandbox with
the project's node_modules (real jest, vitest and mocha from tests/support/js); through the runners'
`collect` and through `showcause review --mode mechanical` end to end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import write_tree
from isolation import AUTO_LEVEL
from jsfixtures import install_modules, js_modules, js_repo, showcause
from showcause.policy import load_policy
from showcause.sandbox.nodeenv import node_mounts
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.base import Collection
from showcause.tools.runners.registry import RUNNERS

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SUM = "exports.sum = (a, b) => a + b;\n"
SUM_BREAKS = {"lib/sum.js": "exports.sum = (a, b) => a - b;\n"}
JEST_TEST = "const { sum } = require('../lib/sum');\ntest('adds', () => { expect(sum(2, 3)).toBe(5); });\n"
MOCHA_TEST = ("const assert = require('node:assert');\nconst { sum } = require('../lib/sum');\n"
              "describe('sum', () => { it('adds', () => { assert.strictEqual(sum(2, 3), 5); }); });\n")


def _pkg(test: str, **fields: object) -> str:
    return json.dumps({"name": "p", "private": True, "scripts": {"test": test}, **fields}) + "\n"


# Each: the project, and the files its runner runs (none of them where the runner's defaults look).
JEST_REGEX = {
    "package.json": _pkg("jest", jest={"testRegex": ["/checks/.*\\.js$"],
                                       "testPathIgnorePatterns": ["/node_modules/", "/checks/skip/"]}),
    "lib/sum.js": SUM, "checks/sum.js": JEST_TEST, "checks/skip/old.js": JEST_TEST,
    "src/other.test.js": "test('not in testRegex', () => { throw new Error('never run'); });\n",
}
JEST_CODE = {
    "package.json": _pkg("jest"),
    "jest.config.js": "const dir = ['checks'].join('');\n"
                      "module.exports = { testMatch: [`<rootDir>/${dir}/**/*.js`] };\n",
    "lib/sum.js": SUM, "checks/sum.js": JEST_TEST,
    "src/__tests__/other.js": "test('not in testMatch', () => { throw new Error('never run'); });\n",
}
VITEST_CODE = {
    "package.json": _pkg("vitest run", type="module"),
    "vitest.config.ts": "import { defineConfig } from 'vitest/config';\n"
                        "export default defineConfig({ test: { include: ['checks/**/*.ts'] } });\n",
    "lib/sum.js": "export const sum = (a, b) => a + b;\n",
    "checks/sum.ts": "import { expect, test } from 'vitest';\nimport { sum } from '../lib/sum.js';\n"
                     "test('adds', () => { expect(sum(2, 3)).toBe(5); });\n",
    "src/other.test.ts": "import { test } from 'vitest';\ntest('not included', () => { throw new Error('no'); });\n",
}
MOCHA_CODE = {
    "package.json": _pkg("mocha"),
    ".mocharc.js": "module.exports = { spec: ['checks/**/*.check.js'], ignore: ['checks/skip/**'] };\n",
    "lib/sum.js": SUM, "checks/sum.check.js": MOCHA_TEST, "checks/skip/old.check.js": MOCHA_TEST,
    "test/other.js": "it('not in spec', () => { throw new Error('never run'); });\n",
}
PROJECTS = {
    "jest-testRegex": ("jest", JEST_REGEX, ["checks/sum.js"], "checks/sum.js::adds"),
    "jest-config-js": ("jest", JEST_CODE, ["checks/sum.js"], "checks/sum.js::adds"),
    "vitest-config-ts": ("vitest", VITEST_CODE, ["checks/sum.ts"], "checks/sum.ts::adds"),
    "mocha-mocharc-js": ("mocha", MOCHA_CODE, ["checks/sum.check.js"], "checks/sum.check.js::sum > adds"),
}


@pytest.fixture(scope="module")
def modules() -> Path:
    return js_modules()


def _collect(tmp_path: Path, runner: str, files: dict[str, str], modules: Path | None,
             isolation: str = "") -> Collection:
    """The runner's collection of a tree, in the environment of a checkout that has `modules` installed."""
    tree = write_tree(tmp_path / "tree", files)
    env = ProjectEnv()
    if modules is not None:
        install_modules(tmp_path / "checkout", modules)
        env = ProjectEnv(mounts=node_mounts(tmp_path / "checkout", (tree,)))
    policy = load_policy({"process": {"isolation": isolation}}) if isolation else load_policy()
    return RUNNERS.get(runner).collect(tree, policy, env)


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_the_runner_itself_says_which_files_are_tests(name: str, modules: Path, tmp_path: Path):
    runner, files, tests, _blocked = PROJECTS[name]
    assert _collect(tmp_path, runner, files, modules) == Collection(tuple(tests), ())


@pytest.mark.parametrize("isolation", [AUTO_LEVEL or "unshare", "none"])
def test_listed_paths_map_back_at_every_level(isolation: str, modules: Path, tmp_path: Path):
    assert _collect(tmp_path, "jest", JEST_CODE, modules, isolation) == Collection(("checks/sum.js",), ())


def test_a_listing_keeps_only_files_of_its_own_package(modules: Path, tmp_path: Path):
    files = {
        "package.json": json.dumps({"name": "mono", "private": True}),
        "packages/app/package.json": _pkg("jest"),
        "packages/app/jest.config.js": "module.exports = { roots: ['<rootDir>/src', '<rootDir>/../../shared'] };\n",
        "packages/app/src/a.test.js": "test('a', () => {});\n",
        "shared/b.test.js": "test('b', () => {});\n",
    }
    assert _collect(tmp_path, "jest", files, modules) == Collection(("packages/app/src/a.test.js",), ())


@pytest.mark.parametrize(("extra", "files", "errors"), [
    ("", (), 0),                                                # jest's own list would hold checks/a.test.js
    (", `${root}/checks/../checks/a.test.js`", ("checks/a.test.js",), 0),
    (", 7", ("checks/a.test.js",), 1),                          # not a listing: an error, the defaults stand in
])
def test_a_forged_listing_names_only_files_of_the_package(extra: str, files: tuple, errors: int, modules: Path,
                                                          tmp_path: Path):
    """The listing is the config's to write (here after jest's own, at exit): only regular files of the
    package's tree survive."""
    forged = ("process.on('exit', () => { const root = process.cwd();\n"
              "  console.log(JSON.stringify(['/etc/passwd', `${root}/../outside.test.js`, `${root}/checks`,\n"
              f"    `${{root}}/gone.test.js`{extra}])); }});\nmodule.exports = {{}};\n")
    tree = {"package.json": _pkg("jest"), "jest.config.js": forged, "checks/a.test.js": "",
            "../outside.test.js": ""}
    found = _collect(tmp_path, "jest", tree, modules)
    assert (found.files, len(found.errors)) == (files, errors)


def test_a_config_that_is_data_is_read_on_the_host(tmp_path: Path):
    """jest is not even installed: a data config never asks it (asking would be an error of the collection)."""
    files = {"package.json": _pkg("jest", jest={"testMatch": ["<rootDir>/checks/**/*.js"]}),
             "checks/a.js": "", "src/b.test.js": ""}
    assert _collect(tmp_path, "jest", files, None) == Collection(("checks/a.js",), ())


@pytest.mark.parametrize(("runner", "files", "message"), [
    ("jest", {"package.json": _pkg("jest"), "jest.config.js": "throw new Error('no config today');\n"},
     "jest's listing of its tests failed (exit 1): Error: no config today"),
    ("vitest", {"package.json": _pkg("vitest run", type="module"),
                "vitest.config.ts": "throw new Error('no config today');\n"},
     "vitest's listing of its tests failed (exit 1): failed to load config from "),
    ("mocha", {"package.json": _pkg("mocha"), ".mocharc.js": "throw new Error('no config today');\n"},
     "mocha's reading of its config failed (exit 1): "),
])
def test_a_config_that_throws_is_a_collection_error_and_the_defaults_stand_in(runner: str, files: dict,
                                                                              message: str, modules: Path,
                                                                              tmp_path: Path):
    tree = {**files, "test/a.test.js": "", "checks/b.js": ""}
    found = _collect(tmp_path, runner, tree, modules)
    assert found.files == ("test/a.test.js",)
    ((test, outcome, said),) = [(e.test, e.outcome, e.message) for e in found.errors]
    assert (test, outcome) == ("<collection>", "error") and said.startswith(message)
    assert "no config today" in said


def _review(repo: Path) -> tuple[int, dict]:
    proc = showcause("review", "--mode", "mechanical", "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD",
                     "--format", "json")
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _run_test(doc: dict) -> dict:
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "run_test"]
    return call


def _blocked_ids(doc: dict) -> list[str]:
    # The detail is "<test id>: <outcome> — <first line of the failure>".
    return sorted(a["detail"].split(" — ", 1)[0].rsplit(": ", 1)[0] for c in doc["claims"]
                  if c["gate"]["status"] == "validated"
                  for a in c["gate"]["artifacts"] if a["type"] == "test_regression")


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_a_review_runs_the_tests_the_runner_names_and_blocks_a_break(name: str, modules: Path, tmp_path: Path):
    _runner, files, tests, blocked = PROJECTS[name]
    breaks = ({"lib/sum.js": "export const sum = (a, b) => a - b;\n"} if name.startswith("vitest") else SUM_BREAKS)
    code, doc = _review(js_repo(tmp_path / "repo", files, breaks, modules))
    assert (code, doc["verdict"], _blocked_ids(doc)) == (1, "MODIFY", [blocked])
    assert _run_test(doc)["args"] == {"test": tests}


def test_a_config_broken_on_head_fails_the_tests_base_collected(modules: Path, tmp_path: Path):
    """Head's listing fails: jest's default testMatch stands in (src/__tests__/other.js), and checks/sum.js,
    which base's listing named, still runs on head, where it gives no result: broken by the change."""
    repo = js_repo(tmp_path / "repo", JEST_CODE, {"jest.config.js": "throw new Error('broken config');\n"}, modules)
    code, doc = _review(repo)
    assert _run_test(doc)["args"] == {"test": ["checks/sum.js", "src/__tests__/other.js"]}
    assert (code, doc["verdict"]) == (1, "MODIFY")
    assert "ERROR checks/sum.js [base: passed — broken by this change]" in _run_test(doc)["output"]


def test_a_config_broken_on_base_leaves_nothing_to_compare(modules: Path, tmp_path: Path):
    base = {**JEST_CODE, "jest.config.js": "throw new Error('broken config');\n"}
    repo = js_repo(tmp_path / "repo", base, {**SUM_BREAKS, "jest.config.js": JEST_CODE["jest.config.js"]}, modules)
    code, doc = _review(repo)
    assert (code, doc["verdict"], doc["error"]["code"]) == (3, "INCONCLUSIVE", "PROBE_UNRUNNABLE")
