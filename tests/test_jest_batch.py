"""The jest files of one package share one jest process (real jest, through `run_tests` in the sandbox).

Found on commander.js: one jest start-up per test file made a review of its 110 files take ~500 s where its
own `jest` takes ~40 s. A file that the shared process did not run as it would alone (it ended the process,
failed to load, or the process timed out) runs again alone, and only that run counts for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jsfixtures import js_modules, js_repo
from showcause.policy import Policy, load_policy
from showcause.service.inputs import tool_context
from showcause.snapshot import from_git
from showcause.tools import testexec

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

PKG = ('{"name": "many", "private": true, "scripts": {"test": "jest"},\n'
       ' "devDependencies": {"jest": "29.7.0"}}\n')
GOOD = {f"t/good{i}.test.js": f"describe('g{i}', () => {{ test('ok', () => {{ expect({i}).toBe({i}); }}); }});\n"
        for i in range(6)}
BAD = {
    "t/exitload.test.js": "console.error('exits at load');\nprocess.exit(3);\n",
    "t/exittest.test.js": "test('before', () => { expect(1).toBe(1); });\n"
                          "test('exits', () => { console.error('exits in a test'); process.exit(0); });\n",
    "t/broken.test.js": "require('./nowhere');\ntest('never', () => {});\n",
    "t/fails.test.js": "test('fails', () => { expect(1).toBe(2); });\n",
}


@pytest.fixture(scope="module")
def modules() -> Path:
    return js_modules()


def _run(repo: Path, files: list[str], policy: Policy | None = None) -> dict[str, tuple[str, str]]:
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        run = testexec.run_tests(snap.head, files, policy or load_policy(), env=tool_context(snap).env)
    return {o.test: (o.outcome, o.message) for o in run.outcomes}


def _paths(argv: tuple[str, ...]) -> list[str]:
    return list(argv[argv.index("--runTestsByPath") + 1:])


def test_the_files_of_a_package_share_a_process(modules: Path, tmp_path: Path, started: list[tuple[str, ...]]):
    """Six files: two jest processes (one per copy that runs at once), three files each, in path order."""
    repo = js_repo(tmp_path / "many", {"package.json": PKG, **GOOD}, {"README.md": "x\n"}, modules)
    rows = _run(repo, sorted(GOOD))
    assert rows == {f"t/good{i}.test.js::g{i} > ok": ("passed", "") for i in range(6)}
    assert len(started) == 2
    assert sorted(len(_paths(argv)) for argv in started) == [3, 3]
    assert all(any(a.endswith("/_jest_order.cjs") for a in argv) for argv in started)


def test_a_file_that_ends_or_breaks_the_shared_process_gets_its_own_result(
        modules: Path, tmp_path: Path, started: list[tuple[str, ...]]):
    """Files that exit at load or in a test, one that does not load and one that fails, among good files:
    each gets what its run alone gives it, and the good files keep theirs."""
    repo = js_repo(tmp_path / "many", {"package.json": PKG, **GOOD, **BAD}, {"README.md": "x\n"}, modules)
    files = sorted({**GOOD, **BAD})
    batched = _run(repo, files)
    batches = [argv for argv in started if len(_paths(argv)) > 1]
    # Ten files in two batches of five: the first (broken, exitload, exittest, fails, good0) ends at exitload,
    # so its five run again alone; the second (good1..5) is read.
    assert len(batches) == 2 and len(started) == 2 + 5
    alone = {}
    for file in BAD:
        alone.update(_run(repo, [file]))
    assert {t: r for t, r in batched.items() if t.split("::")[0] in BAD} == alone
    assert alone["t/exitload.test.js"][0] == "error" and "exits at load" in alone["t/exitload.test.js"][1]
    assert alone["t/exittest.test.js"][0] == "error" and "exits in a test" in alone["t/exittest.test.js"][1]
    assert alone["t/broken.test.js"][0] == "error" and "nowhere" in alone["t/broken.test.js"][1]
    assert alone["t/fails.test.js::fails"][0] == "failed"
    assert {t: r for t, r in batched.items() if t.split("::")[0] in GOOD} == {
        f"t/good{i}.test.js::g{i} > ok": ("passed", "") for i in range(6)}


def test_a_batch_that_runs_is_read_and_only_a_file_that_did_not_load_runs_again(
        modules: Path, tmp_path: Path, started: list[tuple[str, ...]]):
    """No file ends the process: the batches are read, and only the file that failed as a whole runs alone."""
    files = {"package.json": PKG, **GOOD, "t/broken.test.js": BAD["t/broken.test.js"],
             "t/fails.test.js": BAD["t/fails.test.js"]}
    repo = js_repo(tmp_path / "many", files, {"README.md": "x\n"}, modules)
    rows = _run(repo, sorted(f for f in files if f.endswith(".js")))
    assert rows["t/fails.test.js::fails"][0] == "failed" and rows["t/broken.test.js"][0] == "error"
    solo = [_paths(argv) for argv in started if len(_paths(argv)) == 1]
    assert len(solo) == 1 and solo[0][0].endswith("/t/broken.test.js")
    assert len(started) == 3   # two batches of four, then the file that did not load


def test_a_batch_past_its_time_runs_each_file_alone(modules: Path, tmp_path: Path, started: list[tuple[str, ...]]):
    """A file that never returns: its batch is killed at twice one file's limit, then each of its files runs
    alone; the hanging one is a timeout of its own, the others pass."""
    files = {"package.json": PKG, "t/a.test.js": GOOD["t/good0.test.js"], "t/b.test.js": GOOD["t/good1.test.js"],
             "t/hang.test.js": "test('spins', () => { for (;;) {} });\n"}
    repo = js_repo(tmp_path / "many", files, {"README.md": "x\n"}, modules)
    policy = load_policy().merged({"process": {"timeout_s": 6.0}}, "test")
    rows = _run(repo, ["t/a.test.js", "t/b.test.js", "t/hang.test.js"], policy)
    assert rows["t/a.test.js::g0 > ok"] == ("passed", "") and rows["t/b.test.js::g1 > ok"] == ("passed", "")
    assert rows["t/hang.test.js"][0] == "timeout"
    # a.test.js alone (a batch of one), b and hang in a batch that is killed, then each of those alone.
    assert sorted(len(_paths(argv)) for argv in started) == [1, 1, 1, 2]
