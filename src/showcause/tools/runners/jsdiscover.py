"""Which files of a tree a JavaScript runner runs, package by package: globs matched on the host where the
package's config is data, else the list the runner itself gave in the sandbox (`jsask`).

A package whose runner could not be asked (its config throws) is an error of the collection, as a pytest
project whose collection failed is, and the runner's globs that the host can read stand in for it: its tests
still run and show the failure, and a file the base collected is still run on head (`run_test.allowlist`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from showcause.core.globmatch import Glob
from showcause.tools.runners.base import Collection, TestOutcome
from showcause.tools.runners.jsproject import JsProject, js_files, project_for, relative_to_package

__all__ = ["Selection", "collect_js"]


@dataclass(frozen=True)
class Selection:
    """How one package's test files are chosen."""

    include: tuple[Glob, ...] = ()           # globs relative to the package's directory
    exclude: tuple[Glob, ...] = ()
    listed: frozenset[str] | None = None     # the files the runner listed itself (root-relative), when asked
    error: TestOutcome | None = None         # the asking failed: `include`/`exclude` stand in

    def takes(self, file: str, rel: str) -> bool:
        if self.listed is not None:
            return file in self.listed
        return any(g.match(rel) for g in self.include) and not any(g.match(rel) for g in self.exclude)


def collect_js(tree: Path, runner: str, suffixes: tuple[str, ...],
               select: Callable[[JsProject], Selection]) -> Collection:
    """The files of the tree that `runner` runs (the project's runner for them) and that their package's
    selection takes; `select` is asked once per package."""
    chosen: dict[str, Selection] = {}
    found: list[str] = []
    for file in js_files(tree, suffixes):
        project = project_for(tree, file)
        if project.runner != runner:
            continue
        if project.dir not in chosen:
            chosen[project.dir] = select(project)
        if chosen[project.dir].takes(file, relative_to_package(project, file)):
            found.append(file)
    return Collection(tuple(found), tuple(s.error for s in chosen.values() if s.error is not None))
