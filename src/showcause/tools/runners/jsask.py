"""A JavaScript runner asked, inside the sandbox with the project's environment, which files it runs or how its
config reads, where that config is code (`jest.config.js`, `vitest.config.ts`, `.mocharc.js`).

This is the JavaScript counterpart of pytest's collection (`pytest_collect`): the config runs only in a fresh
copy, never on the host. What comes back is written by the project's code, so it is size-capped, parsed with
`jsonsafe`, and every path it names is kept only when it lies inside the asking package and is a regular
file of the tree reached through no link.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from showcause.core import jsonsafe
from showcause.core.errors import ToolArgumentError
from showcause.policy import Policy
from showcause.sandbox.paths import normalize_relpath
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult, run_sandboxed
from showcause.sandbox.workspace import fresh_copy
from showcause.tools.runners.base import Command, TestOutcome
from showcause.tools.runners.jsproject import JsProject
from showcause.tools.runners.jsreport import first_lines

__all__ = ["Answer", "ask", "failure", "last_json_line", "listed_files"]

_MAX_REPORT = 8_000_000     # bytes of a listing or config report read back
_MAX_LISTED = 100_000       # paths of one listing looked at


@dataclass(frozen=True)
class Answer:
    proc: ProcResult
    report: object | None     # the parsed JSON report the command wrote into the out dir (None: none, or unreadable)


def ask(tree: Path, policy: Policy, env: ProjectEnv, cmd: Command, report: str = "",
        prepare: Callable[[Path], object] | None = None) -> Answer:
    """Run `cmd` in a fresh copy of `tree`; `report`: the out dir's file it writes its answer to."""
    with fresh_copy(tree) as dirs:
        if prepare is not None:
            prepare(dirs.out)
        proc = run_sandboxed(cmd.argv, workspace=dirs.workspace, out_dir=dirs.out, policy=policy,
                             memory_mb=policy.process.test_memory_mb, env=cmd.env, address_mb=cmd.address_mb,
                             mounts=env.mounts, cwd=cmd.cwd)
        doc = None
        if report:
            try:
                doc = jsonsafe.load_file(dirs.out / report, max_bytes=_MAX_REPORT)
            except (OSError, UnicodeDecodeError, ValueError):
                doc = None
    return Answer(proc, doc)


def last_json_line(text: str) -> object | None:
    """The last line of a process's output that is a JSON array (jest prints `--listTests --json` so; a
    config that prints runs before it)."""
    for line in reversed(text.split("\n")[-1000:]):   # JSON keeps U+2028 raw: split at \n only
        if line.startswith("["):
            try:
                return jsonsafe.loads(line, max_bytes=_MAX_REPORT)
            except ValueError:
                continue
    return None


def _inside(tree: Path, raw: str, roots: tuple[str, ...]) -> str | None:
    """An absolute path in the sandbox as a path of the tree: under the copy's root, a regular file of the
    tree reached through no link."""
    rel = next((raw[len(r) + 1:] for r in roots if r and raw.startswith(r + "/")), None)
    if rel is None:
        return None
    try:
        rel = normalize_relpath(rel)
    except ToolArgumentError:
        return None
    parts = rel.split("/")
    if any((tree / "/".join(parts[:i])).is_symlink() for i in range(1, len(parts) + 1)):
        return None
    return rel if (tree / rel).is_file() else None


def listed_files(tree: Path, answer: Answer, paths: object, project: JsProject) -> frozenset[str] | None:
    """The absolute paths a runner listed, as files of the tree inside `project`'s package (`collect_js`
    keeps those its package decides for this runner). None when `paths` is not a list of strings (the
    listing did not happen as asked)."""
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        return None
    root = answer.proc.root
    roots = (root, os.path.realpath(root)) if answer.proc.isolation == "none" else (root,)
    found: set[str] = set()
    for raw in paths[:_MAX_LISTED]:
        assert isinstance(raw, str)
        rel = _inside(tree, raw.replace("\\", "/"), roots)
        if rel is not None and (not project.dir or rel.startswith(project.dir + "/")):
            found.add(rel)
    return frozenset(found)


def failure(project: JsProject, runner: str, proc: ProcResult, what: str = "listing of its tests") -> TestOutcome:
    """A package whose runner could not be asked (its config throws, the runner crashed or timed out): an
    error of the package, as pytest reports a project whose collection failed."""
    said = first_lines(proc.stderr.strip() or proc.stdout, 400)
    why = "timed out" if proc.timed_out else f"exit {proc.returncode}"
    return TestOutcome(project.dir or "<collection>", "error",
                       f"{runner}'s {what} failed ({why})" + (f": {said}" if said else ""))
