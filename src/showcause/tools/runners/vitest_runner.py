"""vitest, from the project's own node_modules, one process per test file in its package's directory, read back
from its JSON reporter (`--reporter=json --outputFile`). TypeScript, JSX and ES modules run natively."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from showcause.sandbox.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners.base import Command, TestOutcome
from showcause.tools.runners.jsglob import compile_glob
from showcause.tools.runners.jsproject import project_for, runner_command, tests_of
from showcause.tools.runners.jsreport import read_json_report, wanted

__all__ = ["VitestRunner"]

# vitest's default include and exclude (its config is code: never read on the host).
_INCLUDE = tuple(g for g in (compile_glob("**/*.{test,spec}.?(c|m)[jt]s?(x)"),) if g is not None)
_EXCLUDE = tuple(g for g in (compile_glob(t) for t in (
    "**/node_modules/**", "**/dist/**", "**/cypress/**", "**/.{idea,git,cache,output,temp}/**",
    "**/{karma,rollup,webpack,vite,vitest,jest,ava,babel,nyc,cypress,tsup,build,eslint,prettier}.config.*"))
    if g is not None)


class VitestRunner:
    name: ClassVar[str] = "vitest"
    suffixes: ClassVar[tuple[str, ...]] = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
    per_file: ClassVar[bool] = True

    def claims(self, tree: Path, file: str) -> bool:
        return project_for(tree, file).runner == "vitest"

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        return tests_of(tree, self.name, self.suffixes, lambda _project: _INCLUDE, _EXCLUDE)

    def prepare(self, out: Path) -> None:
        (out / "vitest.json").unlink(missing_ok=True)

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        file = targets[0].split("::", 1)[0]
        project = project_for(tree, file)
        # An existing file as the filter runs that file only; the results cache would write into the
        # read-only node_modules.
        args = ["run", "--reporter=json", "--outputFile={out}/vitest.json",
                f"--testTimeout={1000 * policy.process.test_timeout_s}", "--no-cache", f"{{root}}/{file}"]
        return runner_command(tree, env, project, "vitest/vitest.mjs", args)

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        return wanted(read_json_report(out / "vitest.json", targets[0].split("::", 1)[0]), targets)
