"""mocha, from the project's own node_modules, one process per test file in its package's directory, read
back from showcause's reporter (`_mocha_report.cjs`: one JSON line per test, as tests finish).

mocha adds the `spec` of its config to the files it is given, so the run is narrowed to the target with an
`--ignore` of everything else (a negated glob); a path holding glob syntax cannot be written so, and then
the whole spec runs and only the target's rows are read. A file that does not load (a syntax error, a
require that throws) stops mocha before any test: the reporter names it, an error (no test of it ran), with
its first error line. The options of scripts.test's `mocha` that decide how tests load (`-u tdd`, `--require`,
`--file`, `--loader`, `--node-option`, `--extension`) are given to every run.

Which files are tests: mocha's `spec`, `extension`, `ignore` and `recursive` globbed on the host; read as data
from package.json and a .mocharc.json/.yml, or, where the config is code (.mocharc.js/.cjs), by mocha's own
`loadOptions` in the sandbox (`_mocha_config.cjs`), its defaults standing in when that fails.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

from showcause.core import jsonsafe
from showcause.core.globmatch import Glob, compile_glob, has_special
from showcause.core.hostproc import which
from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.tools.runners import jsproject as js
from showcause.tools.runners.base import Collection, Command, TestOutcome
from showcause.tools.runners.jsask import ask, failure
from showcause.tools.runners.jsdiscover import Selection, collect_js
from showcause.tools.runners.jsproject import JsProject
from showcause.tools.runners.jsreport import wanted

__all__ = ["MochaRunner", "mocha_config", "read_mocha_report", "spec_globs"]

_JS = ("js", "cjs", "mjs")
# Options of mocha's command line that take a value (so that value is not a spec).
_VALUED = {"-r", "--require", "-R", "--reporter", "-O", "--reporter-option", "--reporter-options", "-t",
           "--timeout", "-s", "--slow", "-u", "--ui", "--extension", "--ignore", "--exclude", "--config",
           "--package", "--file", "-g", "--grep", "-f", "--fgrep", "--retries", "-j", "--jobs", "-n",
           "--node-option", "--spec", "--loader"}


def _yaml(text: str) -> dict[str, object]:
    """The top-level `key: value`, `key: [a, b]` and `key:` + `- item` entries of a .mocharc.yml."""
    out: dict[str, object] = {}
    key = None
    for raw in text.splitlines()[:500]:
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] not in " -\t" and ":" in line:
            key, _, value = (p.strip() for p in line.partition(":"))
            if value.startswith("[") and value.endswith("]"):
                out[key] = [v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip()]
            elif value:
                out[key] = {"true": True, "false": False}.get(value, value.strip("'\""))
            else:
                out[key] = []
        elif key is not None and line.strip().startswith("- ") and isinstance(out.get(key), list):
            items = out[key]
            assert isinstance(items, list)
            items.append(line.strip()[2:].strip().strip("'\""))
    return out


def mocha_config(tree: Path, project: JsProject) -> dict[str, object] | None:
    """The package's mocha config when it is data (package.json's `mocha` key under a .mocharc.json/.jsonc/
    .yml/.yaml); None when it is a .mocharc.js or .cjs (code, never run on the host)."""
    pkg = js.package_json(tree, project.dir) or {}
    config: dict[str, object] = dict(pkg["mocha"]) if isinstance(pkg.get("mocha"), dict) else {}  # type: ignore[arg-type]
    for name in js.entries(tree, project.dir):
        if not name.startswith(".mocharc."):
            continue
        ext = name.rsplit(".", 1)[-1]
        if ext in ("js", "cjs", "mjs"):
            return None
        rc = js.read_json(tree, js.rel_to(project.dir, name)) if ext in ("json", "jsonc") else \
            _yaml(js.read_text(tree, js.rel_to(project.dir, name))) if ext in ("yml", "yaml") else None
        if rc is None:
            return None
        config.update(rc)
        break
    return config


def _strings(value: object) -> list[str]:
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [str(v) for v in items if isinstance(v, str) and v]


def _script_specs(args: tuple[str, ...]) -> tuple[list[str], bool]:
    """The spec arguments of `mocha …` in scripts.test, and whether it says --recursive."""
    specs: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _VALUED:
            if arg == "--spec" and i + 1 < len(args):
                specs.append(args[i + 1])
            i += 2
            continue
        if not arg.startswith("-"):
            specs.append(arg)
        i += 1
    return specs, "--recursive" in args


# Options of `mocha …` in scripts.test that decide how the tests load and run (`-u tdd` defines `suite`), kept
# for every run; reporters, globs, timeouts and the like stay showcause's.
_KEPT_VALUED = {"-u", "--ui", "-r", "--require", "--file", "--loader", "-n", "--node-option", "--extension"}
_KEPT_FLAGS = {"--check-leaks", "--async-only", "--delay", "--full-trace", "--allow-uncaught"}


def script_options(args: tuple[str, ...]) -> list[str]:
    """The options of scripts.test's `mocha` that change how a test file loads or runs, as written."""
    kept: list[str] = []
    i = 0
    while i < len(args):
        arg, name = args[i], args[i].split("=", 1)[0]
        if (name in _KEPT_VALUED and "=" in arg) or arg in _KEPT_FLAGS:
            kept.append(arg)
        elif arg in _KEPT_VALUED and i + 1 < len(args):
            kept += [arg, args[i + 1]]
            i += 1
        elif arg in _VALUED:
            i += 1
        i += 1
    return kept


def spec_globs(tree: Path, project: JsProject, config: dict[str, object] | None = None) -> tuple[Glob, ...]:
    """The package's spec as globs relative to its directory; mocha's default (`./test/*.{js,cjs,mjs}`) when
    nothing (readable) says otherwise. `config`: mocha's as read (else the package's, when it is data)."""
    config = config if config is not None else mocha_config(tree, project) or {}
    exts = [e.lstrip(".") for e in _strings(config.get("extension"))] or list(_JS)
    script_specs, recursive = _script_specs(project.args)
    recursive = recursive or config.get("recursive") is True
    specs = [s.removeprefix("./").rstrip("/") for s in (script_specs or _strings(config.get("spec")) or ["test"])]
    globs: list[Glob] = []
    for spec in specs:
        real = (tree / js.rel_to(project.dir, spec))
        text = f"{spec}/{'**/' if recursive else ''}*.{{{','.join(exts)}}}" if real.is_dir() and \
            not real.is_symlink() else spec
        glob = compile_glob(text)
        if glob is not None:
            globs.append(glob)
    return tuple(globs)


def _asked_config(tree: Path, project: JsProject, policy: Policy, env: ProjectEnv) -> tuple[dict[str, object],
                                                                                      TestOutcome | None]:
    """mocha's own reading of the package's config (code), in the sandbox: ({}, the error) when it fails."""
    found = js.installed(tree, env, project.dir, "mocha/lib/cli/options.js")
    if found is None:
        return {}, TestOutcome(project.dir or "<collection>", "error",
                               f"mocha is not installed in node_modules ({project.why}): run npm ci")
    node = which("node") or "/usr/bin/node"
    cmd = Command([node, "{out}/_mocha_config.cjs", found[0]], {"SHOWCAUSE_REPORT": "{out}/mocha-config.json"},
                  address_mb=js.NODE_ADDRESS_MB, cwd=project.dir)
    answer = ask(tree, policy, env, cmd, "mocha-config.json",
                 lambda out: shutil.copy(Path(__file__).with_name("_mocha_config.cjs"), out / "_mocha_config.cjs"))
    if answer.proc.returncode != 0 or not isinstance(answer.report, dict):
        return {}, failure(project, "mocha", answer.proc, "reading of its config")
    return {k: answer.report[k] for k in ("spec", "extension", "ignore", "recursive") if k in answer.report}, None


def _selection(tree: Path, project: JsProject, policy: Policy, env: ProjectEnv) -> Selection:
    config = mocha_config(tree, project)
    error = None
    if config is None:
        config, error = _asked_config(tree, project, policy, env)
    ignore = tuple(g for g in (compile_glob(t) for t in _strings(config.get("ignore"))[:50]) if g is not None)
    return Selection(spec_globs(tree, project, config), ignore, error=error)


def read_mocha_report(path: Path, file: str) -> list[TestOutcome]:
    latest: dict[str, TestOutcome] = {}
    if not path.is_file():
        return []
    # JSON.stringify leaves U+2028 in a title raw: split at \n only (splitlines would cut the line in two).
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
        try:
            row = jsonsafe.loads(line, max_bytes=jsonsafe.MAX_ROW_BYTES)
        except ValueError:   # a line cut by a kill, or one the code under test wrote too large or deep
            continue
        if not isinstance(row, dict) or not str(row.get("file", "")).replace("\\", "/").endswith("/" + file):
            continue
        if row.get("load") is True and row.get("outcome") == "failed":   # the file did not load: no test ran
            latest[file] = TestOutcome(file, "error", str(row.get("message", ""))[:300])
            continue
        titles = row.get("path")
        name = " > ".join(str(t) for t in titles) if isinstance(titles, list) else str(titles)
        outcome = str(row.get("outcome"))
        if outcome in ("passed", "failed", "skipped", "timeout", "error"):
            latest[f"{file}::{name}"] = TestOutcome(f"{file}::{name}", outcome, str(row.get("message", ""))[:300])
    return list(latest.values())


class MochaRunner:
    name: ClassVar[str] = "mocha"
    suffixes: ClassVar[tuple[str, ...]] = (".js", ".cjs", ".mjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")
    per_file: ClassVar[bool] = True

    def claims(self, tree: Path, file: str) -> bool:
        project = js.project_for(tree, file)
        if project.runner != "mocha":
            return False
        config = mocha_config(tree, project)
        if config is None:   # code: its extensions are what discovery asked mocha for
            return True
        exts = [e.lstrip(".") for e in _strings(config.get("extension"))]
        return file.rsplit(".", 1)[-1] in (*_JS, *exts)   # other kinds only where the config names them

    def collect(self, tree: Path, policy: Policy, env: ProjectEnv) -> Collection:
        """The files mocha runs, package by package, and the packages whose config mocha could not read."""
        return collect_js(tree, self.name, self.suffixes, lambda project: _selection(tree, project, policy, env))

    def discover(self, tree: Path, policy: Policy, env: ProjectEnv) -> list[str]:
        return list(self.collect(tree, policy, env).files)

    def prepare(self, out: Path) -> None:
        shutil.copy(Path(__file__).with_name("_mocha_report.cjs"), out / "_mocha_report.cjs")
        (out / "mocha.jsonl").unlink(missing_ok=True)

    def command(self, tree: Path, targets: list[str], policy: Policy, env: ProjectEnv) -> Command:
        file = targets[0].split("::", 1)[0]
        project = js.project_for(tree, file)
        only = [] if has_special(file) else ["--ignore", f"!{{root}}/{file}"]
        args = [*script_options(project.args), "--reporter", "{out}/_mocha_report.cjs", "--no-parallel", "--exit",
                f"--timeout={1000 * policy.process.test_timeout_s}", *only, f"{{root}}/{file}"]
        # mocha 10 ships bin/mocha.js; mocha 9 and older bin/mocha.
        return js.runner_command(tree, env, project, ("mocha/bin/mocha.js", "mocha/bin/mocha"), args,
                              extra_env={"SHOWCAUSE_REPORT": "{out}/mocha.jsonl"})

    def read(self, out: Path, targets: list[str]) -> list[TestOutcome]:
        return wanted(read_mocha_report(out / "mocha.jsonl", targets[0].split("::", 1)[0]), targets)

    def reported(self, out: Path, file: str) -> bool:
        return bool(read_mocha_report(out / "mocha.jsonl", file))
