"""What showcause decides about a JavaScript project on the host, from its files as data: which runner runs a
test file and from where, which files are tests, which node_modules are bound and how, which tests a change
can affect. Nothing here runs the project's code (the runs are in tests/test_js_runners.py)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from builders import git_repo, write_tree
from isolation import AUTO_LEVEL
from showcause.core.globmatch import compile_glob
from showcause.policy import load_policy
from showcause.sandbox.mounts import Mount
from showcause.sandbox.nodeenv import host_path, node_modules_dirs, node_mounts
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import run_sandboxed
from showcause.service.inputs import tool_context
from showcause.snapshot import from_git
from showcause.tools.runners.jsproject import project_for
from showcause.tools.runners.registry import runner_for
from showcause.tools.selection import affected_tests
from showcause.tools.testexec import allowed_tests

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


@pytest.mark.parametrize(("glob", "path", "hit"), [
    ("**/__tests__/**/*.[jt]s?(x)", "src/__tests__/deep/sum.tsx", True),
    ("**/__tests__/**/*.[jt]s?(x)", "src/__tests__/sum.mjs", False),
    ("**/?(*.)+(spec|test).[jt]s?(x)", "src/a.spec.ts", True),
    ("**/?(*.)+(spec|test).[jt]s?(x)", "test.js", True),
    ("**/?(*.)+(spec|test).[jt]s?(x)", "src/latest.js", False),
    ("**/*.{test,spec}.?(c|m)[jt]s?(x)", "a/b.test.mts", True),
    ("**/*.{test,spec}.?(c|m)[jt]s?(x)", "a/b.test.py", False),
    ("./test/*.{js,cjs,mjs}", "test/a.cjs", True),
    ("./test/*.{js,cjs,mjs}", "test/unit/a.js", False),
    ("test/[!_]*.js", "test/_helper.js", False),
])
def test_runner_globs(glob: str, path: str, hit: bool):
    compiled = compile_glob(glob)
    assert compiled is not None and compiled.match(path) is hit


def test_a_projects_glob_cannot_stall_the_host():
    assert compile_glob("!(fixtures)/**") is None and compile_glob("{1..9}.js") is None
    assert compile_glob("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}") is None          # 128 variants: refused
    started = time.monotonic()
    for text in ("*a*a*a*a*a*a*a*a*a*b", "+(a|aa)+(a|aa)+(a|aa)b", "**/**/**/**/**/x"):
        glob = compile_glob(text)
        assert glob is not None and not glob.match("a" * 5000)
    assert time.monotonic() - started < 2


def _pkg(**fields: object) -> str:
    return json.dumps({"name": "p", **fields})


def test_the_nearest_package_json_that_names_a_runner_decides(tmp_path: Path):
    write_tree(tmp_path, {
        "package.json": _pkg(devDependencies={"jest": "29"}, workspaces=["packages/*"]),
        "packages/v/package.json": _pkg(scripts={"test": "npm run test:unit",
                                                 "test:unit": "NODE_ENV=test vitest run --coverage"}),
        "packages/m/package.json": _pkg(),
        "packages/m/.mocharc.yml": "spec: spec/**/*.js\n",
        "packages/plain/package.json": _pkg(description="says nothing"),
        "packages/n/package.json": _pkg(scripts={"test": "node --test test/"}),
    })
    found = {d: project_for(tmp_path, f"packages/{d}/x.test.js") for d in ("v", "m", "plain", "n")}
    assert {d: (p.runner, p.dir) for d, p in found.items()} == {
        "v": ("vitest", "packages/v"), "m": ("mocha", "packages/m"), "plain": ("jest", ""), "n": ("node", "packages/n")}
    assert found["v"].why == "scripts.test of packages/v/package.json runs vitest"
    assert found["m"].why == "packages/m/.mocharc.yml configures mocha"
    assert found["plain"].why == "package.json depends on jest"


def test_each_file_has_one_runner(tmp_path: Path):
    write_tree(tmp_path, {
        "package.json": _pkg(private=True),
        "test/a.test.js": "", "src/b.test.ts": "",
        "apps/j/package.json": _pkg(scripts={"test": "jest"}),
        "apps/j/a.test.js": "", "apps/j/b.test.ts": "", "apps/j/c.test.mjs": "",
        "apps/t/package.json": _pkg(scripts={"test": "jest"}, devDependencies={"ts-jest": "29"}),
        "apps/t/b.test.ts": "",
    })
    names = {f: getattr(runner_for(tmp_path, f), "name", None)
             for f in ("test/a.test.js", "src/b.test.ts", "apps/j/a.test.js", "apps/j/b.test.ts",
                       "apps/j/c.test.mjs", "apps/t/b.test.ts")}
    # node --test where nothing names a runner (no .ts there: node 20 does not strip types); jest runs
    # TypeScript only where the project set up a transform.
    assert names == {"test/a.test.js": "node", "src/b.test.ts": None, "apps/j/a.test.js": "jest",
                     "apps/j/b.test.ts": None, "apps/j/c.test.mjs": "jest", "apps/t/b.test.ts": "jest"}


def test_discovery_reads_the_projects_test_globs_when_they_are_data(tmp_path: Path):
    write_tree(tmp_path, {
        "package.json": _pkg(private=True),
        "j/package.json": _pkg(scripts={"test": "jest"}, jest={"testMatch": ["<rootDir>/checks/**/*.js"]}),
        "j/checks/deep/one.js": "", "j/src/two.test.js": "",
        "m/package.json": _pkg(scripts={"test": "mocha --recursive 'spec/**/*.spec.js'"}),
        "m/spec/x/a.spec.js": "", "m/test/b.js": "",
        "r/package.json": _pkg(devDependencies={"mocha": "10"}), "r/.mocharc.json": '{"recursive": true}',
        "r/test/deep/c.js": "", "r/test/d.mjs": "",
        "v/package.json": _pkg(scripts={"test": "vitest"}),
        "v/src/e.spec.tsx": "", "v/dist/e.spec.js": "", "v/node_modules/x/f.test.js": "",
        "n/test/g.test.js": "",
    })
    assert allowed_tests(tmp_path, load_policy(), ProjectEnv()) == [
        "j/checks/deep/one.js", "m/spec/x/a.spec.js", "r/test/d.mjs", "r/test/deep/c.js", "v/src/e.spec.tsx"]


def _mounts_by_op(mounts: tuple[Mount, ...]) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for m in mounts:
        out.setdefault(m.op, []).append((m.dst, m.src))
    return out


def test_node_modules_are_found_and_bound_read_only(tmp_path: Path):
    src = write_tree(tmp_path / "repo", {
        "node_modules/jest/package.json": "{}", "node_modules/jest/node_modules/inner/package.json": "{}",
        "packages/a/package.json": "{}", "packages/a/node_modules/left-pad/index.js": "",
        "packages/gone/node_modules/x/index.js": "", "vendor/node_modules/kept/index.js": "",
    })
    (tmp_path / "elsewhere").mkdir()
    (src / "tools").mkdir()
    (src / "tools" / "node_modules").symlink_to(tmp_path / "elsewhere")
    head = write_tree(tmp_path / "head", {"packages/a/package.json": "{}", "vendor/node_modules/kept/index.js": "",
                                          "tools/x.js": ""})
    assert node_modules_dirs(src, (head,)) == ["node_modules", "packages/a/node_modules", "vendor/node_modules"]
    # vendor/node_modules is the tree's own; tools/node_modules is a link (not bound); packages/gone is no
    # directory of the reviewed tree.
    assert node_mounts(src, (head,)) == (
        Mount("ro", "{root}/node_modules", str(src / "node_modules")),
        Mount("ro", "{root}/packages/a/node_modules", str(src / "packages/a/node_modules")))
    assert host_path(node_mounts(src, (head,)), "node_modules/jest/package.json") == \
        src / "node_modules/jest/package.json"
    assert node_mounts(None) == ()


def test_workspace_links_are_made_inside_the_copy(tmp_path: Path):
    src = write_tree(tmp_path / "repo", {"node_modules/dep/index.js": "", "node_modules/.package-lock.json": "{}",
                                         "node_modules/@demo/other/index.js": "", "packages/b/index.js": ""})
    (src / "node_modules/@demo/b").symlink_to("../../packages/b")
    (src / "node_modules/c").symlink_to(src / "packages/b")           # absolute, into the repository
    (src / "node_modules/dep2").symlink_to("dep")                      # stays inside node_modules
    got = _mounts_by_op(node_mounts(src, ()))
    nm = str(src / "node_modules")
    assert got == {
        "dir": [("{root}/node_modules", ""), ("{root}/node_modules/@demo", "")],
        "ro": [("{root}/node_modules/.package-lock.json", f"{nm}/.package-lock.json"),
               ("{root}/node_modules/@demo/other", f"{nm}/@demo/other"), ("{root}/node_modules/dep", f"{nm}/dep")],
        "symlink": [("{root}/node_modules/@demo/b", "../../packages/b"), ("{root}/node_modules/c", "../packages/b"),
                    ("{root}/node_modules/dep2", "dep")]}


@pytest.mark.parametrize("isolation", [AUTO_LEVEL or "unshare", "none"])
def test_a_tree_link_never_carries_a_bind_outside_the_copy(tmp_path: Path, isolation: str):
    outside, ws, out = tmp_path / "outside", tmp_path / "ws", tmp_path / "out"
    for d in (outside, ws, out):
        d.mkdir()
    (ws / "pkg").symlink_to(outside)        # the reviewed tree holds a link where a bind would go
    modules = write_tree(tmp_path / "nm", {"x/index.js": "module.exports = 1;\n"})
    mounts = (Mount("ro", "{root}/pkg/node_modules", str(modules)), Mount("ro", "{root}/ok/node_modules",
                                                                          str(modules)))
    code = "import os; print(sorted(os.listdir('ok/node_modules')), os.path.exists('pkg/node_modules'))"
    proc = run_sandboxed([sys.executable, "-c", code], workspace=ws, out_dir=out, memory_mb=1024, mounts=mounts,
                         policy=load_policy({"process": {"isolation": isolation}}))
    assert (proc.returncode, proc.stdout.strip()) == (0, "['x'] False")
    assert list(outside.iterdir()) == []


SELECT_BASE = {
    "package.json": _pkg(private=True, workspaces=["packages/*"], scripts={"test": "vitest run"}),
    "packages/lib/package.json": _pkg(name="@demo/lib", main="src/index.ts"),
    "packages/lib/src/index.ts": "export const two = (): number => 2;\n",
    "packages/app/package.json": _pkg(name="@demo/app"),
    "packages/app/__tests__/app.test.ts": "import { two } from '@demo/lib';\nexport const t = two;\n",
    **{f"src/mod{i}.ts": f"export const v{i} = {i};\n" for i in range(9)},
    **{f"src/mod{i}.spec.ts": f"import {{ v{i} }} from './mod{i}.js';\nexport const t = v{i};\n" for i in range(9)},
}


@pytest.mark.parametrize(("changed", "picked"), [
    ({"src/mod3.ts": "export const v3 = 33;\n"}, ["src/mod3.spec.ts"]),
    ({"packages/lib/src/index.ts": "export const two = (): number => 3;\n"}, ["packages/app/__tests__/app.test.ts"]),
])
def test_affected_tests_follow_typescript_and_workspace_imports(tmp_path: Path, changed: dict, picked: list):
    repo = git_repo(tmp_path / "sel", [SELECT_BASE, changed])
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        tests, why = affected_tests(tool_context(snap))
    assert tests == picked and why == "1 of 10 test files import the changed code"


PACKAGE_ROOT_BASE = {
    "package.json": _pkg(name="commander", main="./index.js", scripts={"test": "jest"}),
    "index.js": "const { Command } = require('./lib/command.js');\nexports.Command = Command;\n",
    "lib/command.js": "class Command {}\nexports.Command = Command;\n",
    "lib/other.js": "exports.other = 1;\n",
    **{f"tests/t{i}.test.js": f"const {{ Command }} = require('{'../' if i % 2 else '..'}');\n"
       "test('x', () => new Command());\n" for i in range(9)},
    "tests/gen.test.js": "const strings = require('./generated/strings');\ntest('g', () => strings);\n",
    "tests/unrelated.test.js": "const { other } = require('../lib/other.js');\ntest('u', () => other);\n",
}


def test_a_package_root_import_and_an_unresolvable_one_select_their_tests(tmp_path: Path):
    """`require('../')` names the package root (its `main`, index.js); an import of a file the graph does not
    know (generated, or not code) could reach anything: both tests run when lib/command.js changes."""
    repo = git_repo(tmp_path / "root", [PACKAGE_ROOT_BASE, {"lib/command.js": "class Command { x() {} }\n"
                                                                              "exports.Command = Command;\n"}])
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        tests, why = affected_tests(tool_context(snap))
    assert tests == ["tests/gen.test.js", *(f"tests/t{i}.test.js" for i in range(9))]
    assert why == "10 of 11 test files import the changed code"


ALIASED = {
    "package.json": _pkg(name="core", scripts={"test": "jest"}, devDependencies={"jest": "29.7.0", "lodash": "4"},
                         jest={"moduleNameMapper": {"^@/(.*)$": "<rootDir>/src/$1"}}),
    "src/debug/index.js": "exports.debug = { on: true };\n",
    "src/colors.js": "exports.red = 'red';\n",
    "test/aliased.test.js": "const { debug } = require('@/debug');\ntest('a', () => expect(debug.on).toBe(true));\n",
    # It reaches the change by a relative path, as ts-core's colors tests did: selection found "some" tests.
    "test/colors.test.js": ("const { red } = require('../src/colors');\nconst fs = require('node:fs');\n"
                            "const { debug } = require('../src/debug');\n"
                            "const path = require('path');\nconst _ = require('lodash');\n"
                            "test('c', () => expect(red).toBe('red'));\n"),
    **{f"test/other{i}.test.js": f"const {{ red }} = require('../src/colors');\ntest('o{i}', () => red);\n"
       for i in range(8)},   # more than SMALL_PROJECT files: selection narrows
}


def test_an_import_through_a_path_alias_selects_its_test(tmp_path: Path):
    """Found on mantlebee/ts-core: `@/debug` (tsconfig `paths`, jest's moduleNameMapper) is no package, and the
    test that imports it was left out (KEEP on a change that broke it). A bare specifier that is neither a
    workspace package, a declared dependency nor a node module may reach anything: its importer runs. node's
    own modules and declared dependencies stay outside the tree."""
    repo = git_repo(tmp_path / "alias", [ALIASED, {"src/debug/index.js": "exports.debug = { on: false };\n"}])
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        tests, why = affected_tests(tool_context(snap))
    assert tests == ["test/aliased.test.js", "test/colors.test.js"]
    assert why == "2 of 10 test files import the changed code"
