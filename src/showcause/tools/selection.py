"""Which allowlisted tests a change can affect, through the tree-sitter import graph."""

from __future__ import annotations

from showcause.analysis.importgraph import dependents
from showcause.symbols import SymbolIndex
from showcause.tools.base import ToolContext
from showcause.tools.run_test import allowlist

__all__ = ["SMALL_PROJECT", "affected_tests"]

SMALL_PROJECT = 8   # at or below this many test files every test runs: cheaper than being wrong


def affected_tests(ctx: ToolContext) -> tuple[list[str], str]:
    """(test files to run, why). All of them when the project is small or the graph cannot tell."""
    tests = allowlist(ctx)
    if len(tests) <= SMALL_PROJECT:
        return tests, f"{len(tests)} test files: all run"
    snap = ctx.snapshot
    with ctx.analysis.measure():
        index = SymbolIndex.for_tree(snap.head, sibling=snap.base, changed=snap.diff.files, budget=ctx.analysis,
                                     worker_min_files=ctx.policy.symbols.symbol_worker_min_files)
    if index.unindexed:   # an import through a file left out would go unseen
        return tests, f"{len(index.unindexed)} file(s) could not be indexed: all tests run"
    reached = dependents(index, set(snap.diff.files))
    if reached is None:
        return tests, "the change touches files outside the import graph: all tests run"
    importing = [t for t in tests if t in reached]
    if not importing:
        return tests, "no test imports the changed files: all tests run"
    # A test that starts a process can run any of the project's code there (a CLI, a fixture program with no
    # extension the graph does not index): unknown means run.
    spawning = [t for t in tests if t not in reached and _spawns(index, t)]
    picked = [t for t in tests if t in reached or t in spawning]
    also = f" (and {len(spawning)} that start processes)" if spawning else ""
    return picked, f"{len(importing)} of {len(tests)} test files import the changed code{also}"


# Modules a test starts processes with.
_SPAWNERS = frozenset({"subprocess", "multiprocessing", "pexpect", "child_process", "node:child_process", "execa",
                       "cross-spawn", "shelljs", "zx"})


def _spawns(index: SymbolIndex, file: str) -> bool:
    return any(spec.split(".", 1)[0] in _SPAWNERS or spec.split("/", 1)[0] in _SPAWNERS
               for spec in index.imports(file))
