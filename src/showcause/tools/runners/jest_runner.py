"""jest, from the project's own node_modules, in its package's directory, read back from its JSON report
(`--json --outputFile`, one entry per file): the files of one package share a process (`batch_key`; testlanes
runs a file again alone when that process did not run it as its own would, `ran_whole`). It starts through
`_jest_run.cjs`, so the tests, which run in jest's own process, see the process.argv a plain `jest` gives
them, never showcause's options.

Which files are tests: `testMatch` matched on the host when the config is data (package.json's `jest` key,
jest.config.json) and says nothing the host cannot read exactly; else jest's own `--listTests` in the
sandbox (a config that is code, `testRegex`, `testPathIgnorePatterns`, `roots`, `projects`, a preset…).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

from showcause.core.globmatch import Glob, compile_glob, compile_globs
from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.base import Collection, Command, TestOutcome
from showcause.tools.runners.jsask import ask, failure, last_json_line, listed_files
from showcause.tools.runners.jsdiscover import Selection, collect_js
from showcause.tools.runners.jsproject import (
    JsProject,
    dependencies,
    entries,
    package_json,
    project_for,
    read_json,
    read_text,
    rel_to,
    runner_command,
)
from showcause.tools.runners.jsreport import names_file, ran_whole, read_json_report, target_files, wanted

__all__ = ["JestRunner", "testmatch_globs"]

# jest's default testMatch.
_DEFAULT = tuple(g for g in (compile_glob("**/__tests__/**/*.[jt]s?(x)"),
                             compile_glob("**/?(*.)+(spec|test).[jt]s?(x)")) if g is not None)
_TS_TRANSFORMS = ("ts-jest", "@swc/jest", "esbuild-jest", "@babel/preset-typescript", "babel-preset-typescript")
_BABEL = ("babel.config.", ".babelrc")
_LAUNCHER = Path(__file__).with_name("_jest_run.cjs")
_ORDER = Path(__file__).with_name("_jest_order.cjs")   # test sequencer of a run of several files
# Keys that change which files jest runs in ways only jest itself reads exactly (a regex on the absolute
# path, roots, presets, projects, extensions).
_ASK_KEYS = frozenset({"testRegex", "testPathIgnorePatterns", "roots", "projects", "rootDir", "preset",
                       "modulePathIgnorePatterns", "moduleFileExtensions", "haste"})


def _chain(tree: Path, project: JsProject) -> list[dict[str, object]]:
    """The package.json of the package and of every directory above it (hoisted dependencies live there)."""
    parts = project.dir.split("/") if project.dir else []
    found = (package_json(tree, "/".join(parts[:i])) for i in range(len(parts), -1, -1))
    return [p for p in found if p is not None]


def _jest_config(tree: Path, project: JsProject) -> dict[str, object]:
    """The jest config when it is data: package.json's `jest` key or a jest.config.json."""
    pkg = package_json(tree, project.dir) or {}
    config = pkg.get("jest")
    if isinstance(config, dict):
        return config
    return read_json(tree, rel_to(project.dir, "jest.config.json")) or {}


def _mentions(tree: Path, project: JsProject, words: tuple[str, ...]) -> bool:
    """Whether the package's jest config (data, or the text of a jest.config.* file) names one of `words`."""
    text = str(_jest_config(tree, project))
    for name in entries(tree, project.dir):
        if name.startswith("jest.config."):
            text += read_text(tree, rel_to(project.dir, name))
    return any(w in text for w in words)


def _transforms_ts(tree: Path, project: JsProject) -> bool:
    deps = set().union(*(dependencies(p) for p in _chain(tree, project)))
    return bool(deps.intersection(_TS_TRANSFORMS)) or _mentions(tree, project, _TS_TRANSFORMS)


def _uses_babel(tree: Path, project: JsProject) -> bool:
    pkg = package_json(tree, project.dir) or {}
    return "babel" in pkg or any(n.startswith(_BABEL) for n in entries(tree, project.dir))


def testmatch_globs(tree: Path, project: JsProject) -> tuple[Glob, ...] | None:
    """The package's `testMatch` (jest's default when its config says none) when its config is data the host
    reads exactly; None when jest itself must be asked."""
    if any(n.startswith("jest.config.") and not n.endswith(".json") for n in entries(tree, project.dir)):
        return None
    config = _jest_config(tree, project)
    if _ASK_KEYS.intersection(config):
        return None
    raw = config.get("testMatch")
    if raw is None:
        return _DEFAULT
    if not isinstance(raw, list) or not raw or not all(isinstance(g, str) for g in raw):
        return None
    texts = [str(g).removeprefix("<rootDir>/") for g in raw]
    if any("<rootDir>" in t or t.startswith("!") for t in texts):   # a negation, a root elsewhere: jest reads it
        return None
    return compile_globs(texts)


def _esm_flags(tree: Path, project: JsProject) -> tuple[str, ...]:
    # Native ES modules need node's VM modules (a project sets it in its test script).
    pkg = package_json(tree, project.dir) or {}
    esm = pkg.get("type") == "module" or "experimental-vm-modules" in project.script
    return ("--experimental-vm-modules",) if esm else ()


def _listed(tree: Path, project: JsProject, policy: Policy, env: ProjectEnv) -> Selection:
    """jest's own `--listTests` for the package, in the sandbox; its default testMatch stands in when that
    fails (an error of the collection)."""
    cmd = runner_command(tree, env, project, "jest/bin/jest.js", ["--listTests", "--json", "--ci", "--watchman=false"],
                         node_flags=_esm_flags(tree, project))
    if cmd.problem:
        return Selection(_DEFAULT, error=TestOutcome(project.dir or "<collection>", "error", cmd.problem))
    answer = ask(tree, policy, env, cmd)
    paths = last_json_line(answer.proc.stdout) if answer.proc.returncode == 0 else None
    listed = listed_files(tree, answer, paths, project)
    if listed is None:
        return Selection(_DEFAULT, error=failure(project, "jest", answer.proc))
    return Selection(listed=listed)


class JestRunner:
    name: ClassVar[str] = "jest"
    suffixes: ClassVar[tuple[str, ...]] = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
    per_file: ClassVar[bool] = True

    def claims(self, tree: Path, file: str) -> bool:
        project = project_for(tree, file)
        if project.runner != "jest":
            return False
        if file.endswith((".ts", ".tsx")):   # jest runs TypeScript only through a transform the project set up
            return _transforms_ts(tree, project)
        if file.endswith(".jsx"):
            return _uses_babel(tree, project) or _transforms_ts(tree, project)
        return True

    def collect(self, tree: Path, policy: Policy, env: ProjectEnv) -> Collection:
        """The files jest runs, package by package, and the packages where asking jest failed."""
        def select(project: JsProject) -> Selection:
            globs = testmatch_globs(tree, project)
            return Selection(globs) if globs is not None else _listed(tree, project, policy, env)
        return collect_js(tree, self.name, self.suffixes, select)

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        return list(self.collect(tree, policy, env).files)

    def prepare(self, out: Path) -> None:
        for part in (_LAUNCHER, _ORDER):
            shutil.copy(part, out / part.name)
        (out / "jest.json").unlink(missing_ok=True)

    def batch_key(self, tree: Path, file: str, env: ProjectEnv) -> str:
        """The process a file may share: its package's (same directory, config and installed jest)."""
        return project_for(tree, file).dir

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        files = target_files(targets)
        project = project_for(tree, files[0])
        args = ["--ci", "--json", "--outputFile={out}/jest.json", "--runInBand", "--forceExit", "--watchman=false",
                f"--testTimeout={1000 * policy.process.test_timeout_s}"]
        if len(files) > 1:   # several files: always in the same order (jest's own orders by size and history)
            args.append(f"--testSequencer={{out}}/{_ORDER.name}")
        args += ["--runTestsByPath", *(f"{{root}}/{f}" for f in files)]
        # Through the launcher: the tests run in jest's process and must not see these options in its argv.
        return runner_command(tree, env, project, "jest/bin/jest.js", args, node_flags=_esm_flags(tree, project),
                              launcher=f"{{out}}/{_LAUNCHER.name}")

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        found = [o for f in target_files(targets) for o in read_json_report(out / "jest.json", f)]
        return wanted(found, targets)

    def reported(self, out: Path, file: str) -> bool:
        return names_file(out / "jest.json", file)

    def ran_whole(self, out: Path, file: str) -> bool:
        return ran_whole(out / "jest.json", file)
