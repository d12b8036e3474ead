"""What a project's own `node --test` (its package.json `scripts.test`) runs and how: the test files node finds
by its naming convention, or the paths the script names, and the node options it gives (`--conditions
development`, `--import tsx`) that decide how a test file loads. Read as data; nothing of the tree runs."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from showcause.tools.runners.globs import discover_tests
from showcause.tools.runners.jsproject import (
    NODE_VALUED,
    package_dirs,
    package_json,
    project_for,
    rel_to,
    split_node_args,
    test_script,
)

__all__ = ["NODE_CONVENTION", "node_options", "script_tests"]

# The files `node --test` runs when it is given no path (node 20): in a `test` directory, named `test`, or
# named `test-*`, `*.test`, `*-test`, `*_test`; node_modules left out.
NODE_CONVENTION = tuple(f"**/{p}.{{js,cjs,mjs}}" for p in ("*.test", "*-test", "*_test", "test-*", "test", "test/**/*"))
# Options showcause sets itself, or that do not fit a review (reporting, watching, coverage, sharding, a time
# limit of the project's own): dropped from what the script gives.
_OURS = ("--test", "--test-reporter", "--test-reporter-destination", "--test-concurrency", "--test-timeout",
         "--test-shard", "--watch", "--watch-path", "--experimental-test-coverage", "--test-coverage-include",
         "--test-coverage-exclude", "--test-only", "--test-force-exit")


def node_options(args: tuple[str, ...]) -> list[str]:
    """The options of the script's `node --test` that decide how tests load and which run, as written; ours
    (reporters, concurrency, time limits, watching, coverage, sharding) left out."""
    options, _paths = split_node_args(args)
    kept: list[str] = []
    i = 0
    while i < len(options):
        name = options[i].split("=", 1)[0]
        width = 2 if options[i] in NODE_VALUED and i + 1 < len(options) else 1
        if name not in _OURS:
            kept += options[i:i + width]
        i += width
    return kept


def script_tests(tree: Path) -> set[str]:
    """The test files each package's own `node --test` (its scripts.test) runs: the paths it names (a file as
    it is, a directory searched by node's convention), or every file of the package by that convention. A file
    counts for the package whose package.json decides its runner."""
    found: set[str] = set()
    for directory in package_dirs(tree):
        pkg = package_json(tree, directory)
        runner = test_script(tree, directory, pkg) if pkg is not None else None
        if runner is None or runner[0] != "node":
            continue
        _options, paths = split_node_args(runner[1])
        for path in paths or ["."]:
            rel = posixpath.normpath(rel_to(directory, path.removeprefix("./")))
            if rel.startswith("..") or os.path.islink(tree / rel):
                continue
            prefix = "" if rel == "." else rel + "/"
            candidates = [rel] if (tree / rel).is_file() else (
                [prefix + f for f in discover_tests(tree / rel, NODE_CONVENTION)] if (tree / rel).is_dir() else [])
            found |= {f for f in candidates if project_for(tree, f).dir == directory}
    return found
