"""One registry of test runners; a test file is run by the first runner, in registration order, whose
suffixes match it and that claims it for the project (a JavaScript project's own runner before `node`).

Plugins add runners with `register` or an entry point in group `showcause.runners`.
"""

from __future__ import annotations

from pathlib import Path

from showcause.core.registry import Registry
from showcause.tools.runners.base import Runner

__all__ = ["RUNNERS", "runner_for", "suffixes"]

_BUILTINS = {
    "pytest": "showcause.tools.runners.pytest_runner:PytestRunner",
    "jest": "showcause.tools.runners.jest_runner:JestRunner",
    "vitest": "showcause.tools.runners.vitest_runner:VitestRunner",
    "mocha": "showcause.tools.runners.mocha_runner:MochaRunner",
    "node": "showcause.tools.runners.node_test:NodeTestRunner",
}


def _adapt(name: str, loaded: object) -> Runner:
    runner = loaded() if isinstance(loaded, type) else loaded
    if not isinstance(runner, Runner):
        raise TypeError(f"{loaded!r} is not a test runner (name, suffixes, per_file, claims, prepare, command, read)")
    if runner.name != name:
        raise ValueError(f"the runner registered as {name!r} calls itself {runner.name!r}")
    return runner


RUNNERS: Registry[Runner] = Registry("test runner", "showcause.runners", _BUILTINS, _adapt)


def suffixes() -> tuple[str, ...]:
    return tuple(dict.fromkeys(s for r in RUNNERS.entries() for s in r.suffixes))


def runner_for(tree: Path, file: str) -> Runner | None:
    for runner in RUNNERS.entries():
        if file.endswith(runner.suffixes) and runner.claims(tree, file):
            return runner
    return None
