"""The Python allowlist: the test files pytest itself collects, asked in the sandbox with the project's environment.

pytest's own settings decide (`testpaths`, `python_files`, `rootdir`, conftest.py, pytest.ini, pyproject's
`[tool.pytest.ini_options]`, setup.cfg's `[tool:pytest]`, tox.ini's `[pytest]`), and unittest classes are
collected as pytest collects them. Each project of the tree (`pytest_projects`: the root and every monorepo
package with pytest settings of its own) is collected in its own directory; a package's files are left out
of the root's collection. Where a project's collection fails as a whole (a config pytest refuses, a
conftest that does not import), the policy's `.py` globs stand in for it, so its tests still run and show
the failure.
"""

from __future__ import annotations

import os
from pathlib import Path

from showcause.core import jsonsafe
from showcause.core.errors import ToolArgumentError
from showcause.core.threads import ContextPool
from showcause.policy import Policy
from showcause.sandbox.paths import normalize_relpath
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult, run_sandboxed
from showcause.sandbox.workspace import fresh_copy
from showcause.tools.runners.base import Collection, TestOutcome
from showcause.tools.runners.globs import discover_tests
from showcause.tools.runners.pytest_projects import find_projects
from showcause.tools.runners.pytest_support import prepare_out, pytest_argv, pytest_env

__all__ = ["Collection", "collect"]

_MAX_FILES = 100_000
_SKIP_WALK = {".git", "node_modules", "__pycache__"}


def _has_python(tree: Path, project: str = "", nested: tuple[str, ...] = ()) -> bool:
    """Whether `project` of `tree` holds a .py file outside its `nested` packages (else pytest has nothing
    there to collect, not even a conftest.py, and its process is not worth starting)."""
    top = tree / project if project else tree
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, tree).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        dirnames[:] = [d for d in dirnames if d not in _SKIP_WALK and prefix + d not in nested]
        if any(f.endswith(".py") for f in filenames):
            return True
    return False


def _test_file(tree: Path, raw: object) -> str | None:
    """A collected file as a path of the tree: a regular file reached through no symlink (the list is written
    by the code under test's process, so each row is checked)."""
    try:
        rel = normalize_relpath(raw)
    except ToolArgumentError:
        return None
    if not rel.endswith(".py"):
        return None
    parts = rel.split("/")
    if any((tree / "/".join(parts[:i])).is_symlink() for i in range(1, len(parts) + 1)):
        return None
    return rel if (tree / rel).is_file() else None


def _rows(path: Path) -> list[object]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n")[:_MAX_FILES]:
        try:
            out.append(jsonsafe.loads(line, max_bytes=jsonsafe.MAX_ROW_BYTES))
        except ValueError:
            continue
    return out


def _errors(out: Path) -> list[TestOutcome]:
    rows = [r for r in _rows(out / "report.jsonl") if isinstance(r, dict) and r.get("outcome") == "error"]
    return [TestOutcome(str(r.get("id")), "error", str(r.get("message", ""))[:400]) for r in rows]


def _failed_whole(proc: ProcResult, files: list[str], errors: list[TestOutcome]) -> bool:
    # pytest: 0 collected, 1 some errors, 5 nothing to collect; anything else (2 interrupted, 3 internal
    # error, 4 usage error, a kill) with nothing collected is a collection that did not happen.
    return not files and not errors and (proc.timed_out or proc.returncode not in (0, 1, 5))


def _fallback(tree: Path, project: str, nested: list[str], policy: Policy) -> list[str]:
    globs = tuple(g for g in policy.tests.discover if g.endswith(".py"))
    found = discover_tests(tree / project if project else tree, globs)
    files = [f"{project}/{f}" if project else f for f in found]
    return [f for f in files if not any(f.startswith(n + "/") for n in nested)]


def _collect_project(tree: Path, workspace: Path, out: Path, project: str, nested: tuple[str, ...],
                     policy: Policy, env: ProjectEnv) -> tuple[list[str], list[TestOutcome], list[str] | None]:
    """One project's collection in its own directory (its nested packages left out), its errors, and its
    sensitive files (`Collection.sensitive`; None when the collection failed as a whole)."""
    out.mkdir(exist_ok=True)
    prepare_out(out)
    argv = pytest_argv(env, policy, "--collect-only", *(f"--ignore={{root}}/{n}" for n in nested))
    proc = run_sandboxed(argv, workspace=workspace, out_dir=out, policy=policy,
                         memory_mb=policy.process.test_memory_mb, mounts=env.mounts, cwd=project,
                         env=pytest_env(env, SHOWCAUSE_COLLECTED="{out}/collected.jsonl"))
    found = [f for f in (_test_file(tree, r) for r in _rows(out / "collected.jsonl")) if f]
    failed = _errors(out)
    errors: list[TestOutcome] = []
    looked = {f for f in (_test_file(tree, r) for r in _rows(out / "considered.jsonl")) if f}
    plugins = {f for f in (_test_file(tree, r) for r in _rows(out / "plugins.jsonl")) if f}
    errored = {e.test.split("::", 1)[0] for e in failed}
    sensitive: list[str] | None = sorted((looked - set(found) - errored) | plugins)
    if _failed_whole(proc, found, failed):
        sensitive = None
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])[:400]
        why = "timed out" if proc.timed_out else f"exit {proc.returncode}"
        errors.append(TestOutcome(project or "<collection>", "error", f"pytest's collection failed ({why}): {tail}"))
        found = _fallback(tree, project, list(nested), policy)
    found += [f for f in (_test_file(tree, e.test.split("::", 1)[0]) for e in failed) if f]
    return found, errors + failed, sensitive


def collect(tree: Path, policy: Policy, env: ProjectEnv) -> Collection:
    """pytest's collection of every project of `tree` (nothing when the tree holds no Python file). The
    projects of a monorepo are collected two at a time (each in its own out dir, on one copy of the tree);
    a project with no .py file of its own (a monorepo's bare root) starts no process."""
    if not _has_python(tree):
        return Collection((), (), ())
    projects = find_projects(tree)
    jobs = [(project, tuple(p for p in projects if p != project and (not project or p.startswith(project + "/"))))
            for project in projects]
    jobs = [(project, nested) for project, nested in jobs if _has_python(tree, project, nested)]
    with fresh_copy(tree) as dirs, ContextPool(max_workers=2) as pool:
        results = list(pool.map(
            lambda i: _collect_project(tree, dirs.workspace, dirs.out.parent / f"out-{i}", jobs[i][0], jobs[i][1],
                                       policy, env),
            range(len(jobs))))
    files = {f for found, _, _ in results for f in found}
    errors = [e for _, failed, _ in results for e in failed]
    parts = [c for _, _, c in results]
    sensitive = None if any(c is None for c in parts) else tuple(sorted({f for c in parts for f in c or ()}))
    return Collection(tuple(sorted(files)), tuple(errors), sensitive)
