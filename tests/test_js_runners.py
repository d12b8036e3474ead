"""jest, vitest and mocha as a project installs them, through `showcause review --repo` (the CLI, the
sandbox at whatever level hides the host here, the project's node_modules bound read-only).

Each runner: a breaking change blocks (MODIFY, exit 1) with the exact root-relative test id, a correct
change passes (KEEP, exit 0). Then `__tests__/` and `*.spec.js` discovery, a mocha file that does not load
(blocking when the change broke it, not when it never loaded), a vitest TypeScript test, an npm
workspaces monorepo, a runner listed but not installed, and the project's own TypeScript compiler.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jsfixtures import js_modules, js_repo, showcause
from showcause.policy import load_policy
from showcause.service.inputs import tool_context
from showcause.snapshot import from_git
from showcause.tools.testexec import run_tests

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

JEST = {
    "package.json": '{"name": "calc", "private": true, "scripts": {"test": "jest"},\n'
                    ' "devDependencies": {"jest": "29.7.0"}}\n',
    "src/sum.js": "exports.sum = (a, b) => a + b;\n"
                  "exports.mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;\n",
    "src/__tests__/sum.test.js": "const { sum } = require('../sum');\n"
                                 "describe('sum', () => {\n"
                                 "  test('adds two numbers', () => { expect(sum(2, 3)).toBe(5); });\n"
                                 "});\n",
    "src/mean.spec.js": "const { mean } = require('./sum');\n"
                        "test('mean of three', () => { expect(mean([1, 2, 6])).toBe(3); });\n",
}
JEST_BREAKS = {"src/sum.js": "exports.sum = (a, b) => a - b;\n"
                             "exports.mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;\n"}
JEST_KEEPS = {"src/sum.js": "exports.sum = (a, b) => [a, b].reduce((s, x) => s + x, 0);\n"
                            "exports.mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;\n"}

VITEST = {
    "package.json": '{"name": "geo", "private": true, "type": "module", "scripts": {"test": "vitest run"},\n'
                    ' "devDependencies": {"vitest": "2.1.9"}}\n',
    "src/clamp.ts": "export function clamp(x: number, lo: number, hi: number): number {\n"
                    "  return Math.min(hi, Math.max(lo, x));\n}\n",
    "src/clamp.test.ts": "import { describe, expect, it } from 'vitest';\n"
                         "import { clamp } from './clamp';\n"
                         "describe('clamp', () => {\n"
                         "  it('keeps values inside', () => { expect(clamp(5, 0, 10)).toBe(5); });\n"
                         "  it('cuts above', () => { expect(clamp(15, 0, 10)).toBe(10); });\n"
                         "});\n",
}
VITEST_BREAKS = {"src/clamp.ts": "export function clamp(x: number, lo: number, hi: number): number {\n"
                                 "  return Math.max(lo, x);\n}\n"}
VITEST_KEEPS = {"src/clamp.ts": "export function clamp(x: number, lo: number, hi: number): number {\n"
                                "  return x < lo ? lo : x > hi ? hi : x;\n}\n"}

MOCHA = {
    "package.json": '{"name": "text", "private": true, "scripts": {"test": "mocha"},\n'
                    ' "devDependencies": {"mocha": "10.8.2"}}\n',
    ".mocharc.json": '{"spec": ["test/**/*.spec.js"]}\n',
    "lib/text.js": "exports.slug = (s) => s.trim().toLowerCase().split(/\\s+/).join('-');\n"
                   "exports.words = (s) => s.trim().split(/\\s+/).length;\n",
    "test/slug.spec.js": "const assert = require('node:assert');\nconst { slug } = require('../lib/text');\n"
                         "describe('slug', () => {\n"
                         "  it('joins words with dashes', () => { assert.strictEqual(slug(' A b '), 'a-b'); });\n"
                         "});\n",
    "test/unit/words.spec.js": "const assert = require('node:assert');\nconst { words } = require('../../lib/text');\n"
                               "describe('words', () => { describe('count', () => {\n"
                               "  it('counts words', () => { assert.strictEqual(words('a b c'), 3); });\n"
                               "}); });\n",
}
MOCHA_BREAKS = {"lib/text.js": "exports.slug = (s) => s.trim().toLowerCase().split(/\\s+/).join('_');\n"
                               "exports.words = (s) => s.trim().split(/\\s+/).length;\n"}
MOCHA_KEEPS = {"lib/text.js": "exports.slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');\n"
                              "exports.words = (s) => s.trim().split(/\\s+/).length;\n"}


@pytest.fixture(scope="module")
def modules() -> Path:
    return js_modules()


def _review(repo: Path) -> tuple[int, dict]:
    proc = showcause("review", "--mode", "mechanical", "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD",
                     "--format", "json")
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _blocked_ids(doc: dict) -> list[str]:
    # The detail is "<test id>: <outcome> — <first line of the failure>".
    return sorted(a["detail"].split(" — ", 1)[0].rsplit(": ", 1)[0] for c in doc["claims"]
                  if c["gate"]["status"] == "validated"
                  for a in c["gate"]["artifacts"] if a["type"] == "test_regression")


RUNNERS = {
    "jest": (JEST, JEST_BREAKS, JEST_KEEPS, ["src/__tests__/sum.test.js::sum > adds two numbers"],
             ["src/__tests__/sum.test.js", "src/mean.spec.js"]),
    "vitest": (VITEST, VITEST_BREAKS, VITEST_KEEPS, ["src/clamp.test.ts::clamp > cuts above"],
               ["src/clamp.test.ts"]),
    "mocha": (MOCHA, MOCHA_BREAKS, MOCHA_KEEPS, ["test/slug.spec.js::slug > joins words with dashes"],
              ["test/slug.spec.js", "test/unit/words.spec.js"]),
}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_a_breaking_change_blocks_with_the_root_relative_test_id(runner: str, modules: Path, tmp_path: Path):
    base, breaks, _keeps, ids, files = RUNNERS[runner]
    code, doc = _review(js_repo(tmp_path / runner, base, breaks, modules))
    assert (code, doc["verdict"]) == (1, "MODIFY")
    assert _blocked_ids(doc) == ids
    # Its own discovery found every test file (`__tests__/`, `*.spec.js`, the .mocharc spec), all run.
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "run_test"]
    assert call["args"] == {"test": files}
    assert "/ws/" not in call["output"] and f"FAILED {ids[0]} [base: passed" in call["output"]


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_a_correct_change_keeps(runner: str, modules: Path, tmp_path: Path):
    base, _breaks, keeps, ids, _files = RUNNERS[runner]
    code, doc = _review(js_repo(tmp_path / runner, base, keeps, modules))
    assert (code, doc["verdict"], doc["claims"]) == (0, "KEEP", [])
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "run_test"]
    assert call["ok"] and f"PASSED {ids[0]}" in call["output"] and "FAILED" not in call["output"]


def test_mocha_runs_only_the_file_asked_for_despite_its_config_spec(modules: Path, tmp_path: Path):
    """mocha adds its config's spec to the files it is given: a spec file that cannot load must not stop
    the run of another one."""
    broken = {"test/broken.spec.js": "throw new Error('this file does not load');\n"}
    repo = js_repo(tmp_path / "m", {**MOCHA, **broken}, {"README.md": "x\n"}, modules)
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        env = tool_context(snap).env
        run = run_tests(snap.head, ["test/slug.spec.js", "test/unit/words.spec.js"], load_policy(), env=env)
    assert [(o.test, o.outcome) for o in run.outcomes] == [
        ("test/slug.spec.js::slug > joins words with dashes", "passed"),
        ("test/unit/words.spec.js::words > count > counts words", "passed")]
    assert run.problem == "" and run.complete


def test_a_mocha_file_that_does_not_load_is_an_error_of_that_file(modules: Path, tmp_path: Path):
    """mocha stops before any test when a file does not load; its reporter still names the file, an error (no
    test of it ran), as jest's and node's do."""
    broken = {"test/syntax.spec.js": "describe('open', () => {\n",
              "test/throws.spec.js": "require('./no-such-module');\n",
              "test/esm.spec.mjs": "import { x } from './no-such-module.mjs';\n"}
    repo = js_repo(tmp_path / "m", {**MOCHA, **broken}, {"README.md": "x\n"}, modules)
    targets = ["test/syntax.spec.js", "test/throws.spec.js", "test/esm.spec.mjs", "test/slug.spec.js"]
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        env = tool_context(snap).env
        run = run_tests(snap.head, targets, load_policy(), env=env)
    rows = [(o.test, o.outcome, o.message) for o in run.outcomes]
    assert rows[:2] == [("test/syntax.spec.js", "error", "SyntaxError: Unexpected end of input"),
                        ("test/throws.spec.js", "error", "Error: Cannot find module './no-such-module'")]
    assert rows[2][:2] == ("test/esm.spec.mjs", "error") and rows[2][2].startswith("Error: Cannot find module")
    assert rows[3] == ("test/slug.spec.js::slug > joins words with dashes", "passed", "")


SYNTAX_ERROR = {"test/slug.spec.js": MOCHA["test/slug.spec.js"] + "describe('unclosed', () => {\n"}


def test_a_mocha_file_broken_by_the_change_blocks(modules: Path, tmp_path: Path):
    code, doc = _review(js_repo(tmp_path / "m", MOCHA, SYNTAX_ERROR, modules))
    assert (code, doc["verdict"], _blocked_ids(doc)) == (1, "MODIFY", ["test/slug.spec.js"])
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "run_test"]
    assert ("ERROR test/slug.spec.js [base: passed — broken by this change] (failed all 3 runs on head, passed all "
            "3 on base) — SyntaxError: Unexpected end of input") in call["output"]


def test_a_mocha_file_that_did_not_load_before_the_change_does_not_block(modules: Path, tmp_path: Path):
    code, doc = _review(js_repo(tmp_path / "m", {**MOCHA, **SYNTAX_ERROR}, MOCHA_KEEPS, modules))
    assert (code, doc["verdict"], _blocked_ids(doc)) == (0, "KEEP", [])
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "run_test"]
    assert ("ERROR test/slug.spec.js [base: error — already failing before this change] — SyntaxError: "
            "Unexpected end of input") in call["output"]


MONO = {
    "package.json": '{"name": "mono", "private": true, "workspaces": ["packages/*"],\n'
                    ' "scripts": {"test": "npm test --workspaces"},\n'
                    ' "devDependencies": {"jest": "29.7.0", "mocha": "10.8.2"}}\n',
    "packages/a/package.json": '{"name": "@demo/a", "version": "1.0.0", "scripts": {"test": "jest"},\n'
                               ' "dependencies": {"@demo/b": "1.0.0"}}\n',
    "packages/a/__tests__/label.test.js": "const { label } = require('@demo/b');\n"
                                          "test('label of b', () => { expect(label()).toBe('b'); });\n",
    "packages/b/package.json": '{"name": "@demo/b", "version": "1.0.0", "main": "index.js",\n'
                               ' "scripts": {"test": "mocha"}}\n',
    "packages/b/index.js": "exports.double = (x) => x * 2;\nexports.label = () => 'b';\n",
    "packages/b/test/double.test.js": "const assert = require('node:assert');\nconst { double } = require('..');\n"
                                      "describe('double', () => {\n"
                                      "  it('doubles', () => { assert.strictEqual(double(2), 4); });\n"
                                      "});\n",
}
MONO_LINKS = {"@demo/a": "../../packages/a", "@demo/b": "../../packages/b"}


@pytest.fixture
def mono(modules: Path, tmp_path: Path) -> Path:
    """The monorepo, its change breaking package b; the user's working tree has b edited on top (the
    workspace link `node_modules/@demo/b` must lead into the reviewed copy, never there)."""
    repo = js_repo(tmp_path / "mono", MONO, {"packages/b/index.js": "exports.double = (x) => x * 3;\n"
                                                                     "exports.label = () => 'b';\n"},
                   modules, MONO_LINKS)
    (repo / "packages/b/index.js").write_text("exports.double = (x) => x * 3;\nexports.label = () => 'WORKTREE';\n")
    return repo


def test_a_monorepo_runs_each_package_with_its_own_runner(mono: Path):
    code, doc = _review(mono)
    assert (code, doc["verdict"]) == (1, "MODIFY")
    assert _blocked_ids(doc) == ["packages/b/test/double.test.js::double > doubles"]
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "run_test"]
    assert call["args"] == {"test": ["packages/a/__tests__/label.test.js", "packages/b/test/double.test.js"]}
    # a's jest test reached b through the workspace link: the reviewed b, not the working tree's.
    assert "PASSED packages/a/__tests__/label.test.js::label of b" in call["output"]


@pytest.mark.parametrize("isolation", ["none"])
def test_workspace_links_lead_into_the_copy_without_isolation_too(mono: Path, isolation: str):
    proc = showcause("tools", "run", "run_test", "--repo", str(mono), "--base", "HEAD~1", "--head", "HEAD",
                     "--isolation", isolation, "--args", '{"test": "packages/a/__tests__/label.test.js"}')
    assert proc.returncode == 0, proc.stderr
    assert "PASSED packages/a/__tests__/label.test.js::label of b" in proc.stdout
    assert (mono / "packages/b/index.js").read_text().endswith("'WORKTREE';\n")   # the user's tree untouched


def test_a_runner_listed_but_not_installed_is_said(tmp_path: Path):
    code, doc = _review(js_repo(tmp_path / "bare", JEST, JEST_BREAKS, None))
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "run_test"]
    assert call["ok"] is False
    assert call["output"].endswith(": jest is not installed in node_modules (scripts.test of package.json "
                                   "runs jest): run npm ci")
    assert doc["verdict"] != "MODIFY" and code != 1


TS = {
    "package.json": '{"name": "typed", "private": true, "devDependencies": {"typescript": "5.9.3"}}\n',
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "types": [],\n'
                     ' "module": "nodenext"}, "include": ["src"]}\n',
    "src/port.ts": "export const port: number = 8080;\n",
}


def test_the_projects_own_typescript_checks_it(modules: Path, tmp_path: Path):
    repo = js_repo(tmp_path / "ts", TS, {"src/port.ts": "export const port: number = '8080';\n"}, modules)
    code, doc = _review(repo)
    assert (code, doc["verdict"]) == (1, "MODIFY")
    (call,) = [c for c in doc["tool_calls"] if c["tool"] == "typecheck"]
    first = call["output"].splitlines()[0].split(" ", 1)[1]
    assert first.startswith("typecheck tsc (tsc 5.9.3 from the project's node_modules): 1 errors on head (1 new")
    assert "NEW src/port.ts:1:14 error TS2322: Type 'string' is not assignable to type 'number'." in call["output"]
