"""vitest, from the project's own node_modules, in its package's directory, read back from its JSON reporter
(`--reporter=json --outputFile`). TypeScript, JSX and ES modules run natively. The files of one package share
a process (`batch_key`, testlanes), one file after another (`--fileParallelism=false`, vitest 1.1 and later;
each file still gets its own module graph, vitest's default isolation); an older vitest runs a file per process.

Which files are tests: vitest's defaults when the package has no config; its config is code
(`vitest.config.*`, a `vite.config.*`, a workspace file), so then vitest itself lists them in the sandbox
(`vitest list --filesOnly --json=FILE`, vitest 2.1 and later). An older vitest cannot list files without
loading every test, and its defaults stand in.

Every vitest process preloads `_vite_temp.cjs`: vite 6 and later bundle a TypeScript or ES-module config into
`node_modules/.vite-temp`, which is read-only in the sandbox; refused with EACCES, vite writes it beside the
config in the copy instead (its own fallback), so node_modules stays read-only and a `vitest.config.mts` loads.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

from showcause.core import jsonsafe
from showcause.core.globmatch import compile_glob
from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.base import Collection, Command, TestOutcome
from showcause.tools.runners.jsask import ask, failure, listed_files
from showcause.tools.runners.jsdiscover import Selection, collect_js
from showcause.tools.runners.jsproject import JsProject, entries, installed, project_for, runner_command
from showcause.tools.runners.jsreport import names_file, ran_whole, read_json_report, target_files, wanted

__all__ = ["VitestRunner"]

# vitest's default include and exclude (its config is code: never read on the host).
_INCLUDE = tuple(g for g in (compile_glob("**/*.{test,spec}.?(c|m)[jt]s?(x)"),) if g is not None)
_EXCLUDE = tuple(g for g in (compile_glob(t) for t in (
    "**/node_modules/**", "**/dist/**", "**/cypress/**", "**/.{idea,git,cache,output,temp}/**",
    "**/{karma,rollup,webpack,vite,vitest,jest,ava,babel,nyc,cypress,tsup,build,eslint,prettier}.config.*"))
    if g is not None)
_CONFIGS = ("vitest.config.", "vite.config.", "vitest.workspace.", "vitest.projects.")
_LISTS_FILES = (2, 1)      # the first vitest whose `list` takes --filesOnly
_SERIAL_FILES = (1, 1)     # the first vitest with --fileParallelism (a batch's files one after another)
_LIST = "vitest-list.json"
_PRELOAD = Path(__file__).with_name("_vite_temp.cjs")
_FLAGS = ("--require", f"{{out}}/{_PRELOAD.name}")   # node's, before vitest's own script


def _preload(out: Path) -> None:
    shutil.copy(_PRELOAD, out / _PRELOAD.name)


def _version(tree: Path, project: JsProject, env: ProjectEnv) -> tuple[int, ...] | None:
    """The installed vitest's version, from its package.json (data)."""
    found = installed(tree, env, project.dir, "vitest/package.json")
    try:
        pkg = jsonsafe.load_file(found[1], max_bytes=jsonsafe.MAX_CONFIG_BYTES) if found else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    version = pkg.get("version") if isinstance(pkg, dict) else None
    parts = version.split("-", 1)[0].split(".") if isinstance(version, str) else []
    return tuple(int(p) for p in parts) if parts and all(p.isdigit() for p in parts) else None


def _selection(tree: Path, project: JsProject, policy: Policy, env: ProjectEnv) -> Selection:
    """vitest's defaults where the package has no config (or its vitest cannot list files); else the files
    `vitest list --filesOnly` gives in the sandbox, its defaults standing in when that fails."""
    version = _version(tree, project, env)
    if not any(n.startswith(_CONFIGS) for n in entries(tree, project.dir)) or \
            (version is not None and version < _LISTS_FILES):
        return Selection(_INCLUDE, _EXCLUDE)
    cmd = runner_command(tree, env, project, "vitest/vitest.mjs",
                         ["list", "--filesOnly", f"--json={{out}}/{_LIST}", "--no-cache"], node_flags=_FLAGS)
    if cmd.problem:
        return Selection(_INCLUDE, _EXCLUDE, error=TestOutcome(project.dir or "<collection>", "error", cmd.problem))
    answer = ask(tree, policy, env, cmd, _LIST, _preload)
    rows = answer.report if answer.proc.returncode == 0 and isinstance(answer.report, list) else None
    paths = [r.get("file") for r in rows if isinstance(r, dict)] if rows is not None else None
    listed = listed_files(tree, answer, paths, project)
    if listed is None:
        return Selection(_INCLUDE, _EXCLUDE, error=failure(project, "vitest", answer.proc))
    return Selection(listed=listed)


class VitestRunner:
    name: ClassVar[str] = "vitest"
    suffixes: ClassVar[tuple[str, ...]] = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
    per_file: ClassVar[bool] = True

    def claims(self, tree: Path, file: str) -> bool:
        return project_for(tree, file).runner == "vitest"

    def collect(self, tree: Path, policy: Policy, env: ProjectEnv) -> Collection:
        """The files vitest runs, package by package, and the packages where asking vitest failed."""
        return collect_js(tree, self.name, self.suffixes, lambda project: _selection(tree, project, policy, env))

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        return list(self.collect(tree, policy, env).files)

    def prepare(self, out: Path) -> None:
        _preload(out)
        (out / "vitest.json").unlink(missing_ok=True)

    def batch_key(self, tree: Path, file: str, env: ProjectEnv) -> str | None:
        """The process a file may share: its package's, where its vitest runs a batch's files one by one."""
        project = project_for(tree, file)
        version = _version(tree, project, env)
        return project.dir if version is not None and version >= _SERIAL_FILES else None

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        files = target_files(targets)
        project = project_for(tree, files[0])
        # An existing file as the filter runs that file only; the results cache would write into the
        # read-only node_modules.
        args = ["run", "--reporter=json", "--outputFile={out}/vitest.json",
                f"--testTimeout={1000 * policy.process.test_timeout_s}", "--no-cache"]
        if len(files) > 1:
            args.append("--fileParallelism=false")
        args += [f"{{root}}/{f}" for f in files]
        return runner_command(tree, env, project, "vitest/vitest.mjs", args, node_flags=_FLAGS)

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        found = [o for f in target_files(targets) for o in read_json_report(out / "vitest.json", f)]
        return wanted(found, targets)

    def reported(self, out: Path, file: str) -> bool:
        return names_file(out / "vitest.json", file)

    def ran_whole(self, out: Path, file: str) -> bool:
        return ran_whole(out / "vitest.json", file)
