"""A vitest project whose config is TypeScript (`vitest.config.mts`), with vitest 3 on vite 6, through the
vitest runner at each level that hides the host and at `none`.

vite 6 bundles such a config into `node_modules/.vite-temp/` before it loads anything, and node_modules is
bound read-only in the sandbox: vitest died with `ENOENT: mkdir '/ws/node_modules/.vite-temp'`, so its
listing failed and no test ran. Now vite takes its own fallback (the bundled config beside the config file,
in the copy): the config loads — a `__dirname` alias included, which vite's `--configLoader runner` would
not define — while node_modules stays read-only, and nothing is written into the user's checkout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jsfixtures import js_modules, js_repo
from showcause.core.errors import SandboxUnavailable
from showcause.policy import SAFE_LEVELS, load_policy
from showcause.sandbox.levels import probe
from showcause.service.inputs import tool_context
from showcause.snapshot import from_git
from showcause.tools.runners.base import Collection
from showcause.tools.runners.vitest_runner import VitestRunner
from showcause.tools.testexec import run_tests

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

PROJECT = {
    "package.json": '{"name": "geo", "private": true, "type": "module", "scripts": {"test": "vitest run"},\n'
                    ' "devDependencies": {"vite": "6.3.5", "vitest": "3.2.4"}}\n',
    # Only the config says which files are tests (*.check.ts) and what `@` is: nothing runs unless it loads.
    "vitest.config.mts": "import path from 'node:path';\nimport { defineConfig } from 'vitest/config';\n"
                         "export default defineConfig({\n"
                         "  resolve: { alias: { '@': path.resolve(__dirname, 'src') } },\n"
                         "  test: { include: ['src/**/*.check.ts'] },\n});\n",
    "src/clamp.ts": "export const clamp = (x: number, lo: number, hi: number): number =>"
                    " Math.min(hi, Math.max(lo, x));\n",
    "src/clamp.check.ts": "import { expect, test } from 'vitest';\nimport { clamp } from '@/clamp';\n"
                          "test('cuts above', () => { expect(clamp(15, 0, 10)).toBe(10); });\n",
    # The code under test still cannot write into node_modules (in the sandbox; at `none` it is the user's).
    "src/ro.check.ts": "import fs from 'node:fs';\nimport { expect, test } from 'vitest';\n"
                       "test('node_modules is read-only', () => {\n"
                       "  expect(() => fs.writeFileSync('node_modules/planted.js', '')).toThrow(/EROFS/);\n"
                       "  expect(() => fs.mkdirSync('node_modules/.vite-temp/x', { recursive: true })).toThrow();\n"
                       "});\n",
}
PASSED = [("src/clamp.check.ts::cuts above", "passed"), ("src/ro.check.ts::node_modules is read-only", "passed")]


@pytest.fixture(scope="module")
def modules() -> Path:
    return js_modules("js-vite6")


def _review(repo: Path, level: str, files: list[str]) -> tuple[Collection, list[tuple[str, str]]]:
    policy = load_policy({"process": {"isolation": level}})
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        env = tool_context(snap).env
        listed = VitestRunner().collect(snap.head, policy, env)
        run = run_tests(snap.head, files, policy, env=env)
    return listed, [(o.test, o.outcome) for o in run.outcomes]


@pytest.mark.parametrize("level", SAFE_LEVELS)
def test_a_typescript_config_loads_with_node_modules_read_only(level: str, modules: Path, tmp_path: Path):
    repo = js_repo(tmp_path / "geo", PROJECT, {"README.md": "x\n"}, modules)
    if not probe(level).ok:   # a level this host lacks is refused, never run weaker
        with pytest.raises(SandboxUnavailable):
            _review(repo, level, ["src/clamp.check.ts"])
        return
    listed, outcomes = _review(repo, level, ["src/clamp.check.ts", "src/ro.check.ts"])
    assert listed == Collection(("src/clamp.check.ts", "src/ro.check.ts"), ())
    assert sorted(outcomes) == PASSED
    assert not (repo / "node_modules/.vite-temp").exists() and not (repo / "node_modules/planted.js").exists()


def test_without_isolation_nothing_is_written_into_the_checkout(modules: Path, tmp_path: Path):
    """At `none` node_modules is the user's own directory: vite's bundle goes into the copy all the same."""
    repo = js_repo(tmp_path / "geo", PROJECT, {"README.md": "x\n"}, modules)
    listed, outcomes = _review(repo, "none", ["src/clamp.check.ts"])
    assert (listed.files, outcomes) == (("src/clamp.check.ts", "src/ro.check.ts"), PASSED[:1])
    assert not (repo / "node_modules/.vite-temp").exists()
    assert sorted(p.name for p in repo.iterdir()) == [".git", ".gitignore", "README.md", "node_modules",
                                                        "package.json", "src", "vitest.config.mts"]
