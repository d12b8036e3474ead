"""The vitest files of one package share one vitest process, one file after another (real vitest 2.1, through
`run_tests` in the sandbox), and each file's outcomes are what its run alone gives it: a file that does not
load in the batch runs again alone, and only that run counts for it.

Found on TanStack Query's core: one vitest start-up (TypeScript transform, jsdom) per test file."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsfixtures import js_modules, js_repo
from showcause.policy import load_policy
from showcause.service.inputs import tool_context
from showcause.snapshot import from_git
from showcause.tools import testexec

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

PKG = ('{"name": "many", "private": true, "type": "module", "scripts": {"test": "vitest run"},\n'
       ' "devDependencies": {"vitest": "2.1.9"}}\n')
# Each file counts the files loaded before it in its process: with vitest's isolation, none.
GOOD = {f"t/good{i}.test.ts": ("import { describe, expect, it } from 'vitest';\n"
                               "const seen = (globalThis as any).__seen = ((globalThis as any).__seen ?? 0) + 1;\n"
                               f"describe('g{i}', () => {{ it('alone', () => {{ expect(seen).toBe(1); }}); }});\n")
        for i in range(4)}
BROKEN = {"t/broken.test.ts": "import { it } from 'vitest';\nimport './nowhere';\nit('never', () => {});\n"}
FAILS = {"t/fails.test.ts": "import { it, expect } from 'vitest';\nit('fails', () => { expect(1).toBe(2); });\n"}


@pytest.fixture(scope="module")
def modules() -> Path:
    return js_modules()


def _files(argv: tuple[str, ...]) -> list[str]:
    return [a.rsplit("/", 2)[-2] + "/" + a.rsplit("/", 1)[-1] for a in argv if a.endswith(".test.ts")]


def test_vitest_files_share_a_process_and_keep_their_isolation(modules: Path, tmp_path: Path,
                                                                started: list[tuple[str, ...]]):
    files = {"package.json": PKG, **GOOD, **FAILS, **BROKEN}
    repo = js_repo(tmp_path / "v", files, {"README.md": "x\n"}, modules)
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        run = testexec.run_tests(snap.head, sorted(f for f in files if f.endswith(".ts")), load_policy(),
                                 env=tool_context(snap).env)
    rows = {o.test: o.outcome for o in run.outcomes}
    assert rows == {**{f"t/good{i}.test.ts::g{i} > alone": "passed" for i in range(4)},
                    "t/fails.test.ts::fails": "failed", "t/broken.test.ts": "error"}
    batches = [argv for argv in started if len(_files(argv)) > 1]
    assert len(batches) == 2 and all("--fileParallelism=false" in argv for argv in batches)
    # Six files in two batches of three; only the file that did not load runs again, alone.
    assert sorted(len(_files(argv)) for argv in batches) == [3, 3]
    assert [_files(argv) for argv in started if len(_files(argv)) == 1] == [["t/broken.test.ts"]]
    assert len(started) == 3
    broken = next(o for o in run.outcomes if o.test == "t/broken.test.ts")
    assert "nowhere" in broken.message
