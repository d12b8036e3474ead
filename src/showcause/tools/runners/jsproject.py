"""A JavaScript project as its files say: which runner runs a test file, from which package directory.

The nearest package.json above the file decides, else the next one up (a monorepo's root): its
`scripts.test` (following one `npm run X`), then its runner's config files (`jest.config.*`,
`vitest.config.*`, a `vite.config.*` with a `test` section, `.mocharc.*`, the `jest`/`mocha` keys), then its
dependencies. Everything is read as data: package.json through `jsonsafe` with a size cap, config files by
name (a bounded read of text at most); no file of the tree is executed or imported on the host.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
import stat
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from showcause.core import jsonsafe
from showcause.core.hostproc import which
from showcause.sandbox.nodeenv import host_path
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.toolchain import test_node_options
from showcause.tools.runners.base import Command

__all__ = ["JS_RUNNERS", "NODE_ADDRESS_MB", "NODE_VALUED", "JsProject", "declared_test_script", "dependencies",
           "entries", "installed", "js_files", "package_dirs", "package_json", "project_for", "read_json", "read_text",
           "rel_to", "relative_to_package", "runner_command", "split_node_args", "test_script"]

NODE_ADDRESS_MB = 16384   # address space only; real memory stays capped by the memory cgroup

JS_RUNNERS = ("jest", "vitest", "mocha")
_MAX_TEXT = 200_000          # bytes of a config file read for a word (never parsed as code)
_MAX_ENTRIES = 2000          # directory entries looked at for config files
_OPERATORS = {"&&", "||", ";", "|", "&", "(", ")"}
_DELEGATES = {("npm", "run"), ("npm", "run-script"), ("yarn", "run"), ("pnpm", "run"), ("bun", "run")}
_SKIP_DIRS = {".git", "node_modules"}


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _regular(path: Path) -> os.stat_result | None:
    st = _lstat(path)
    return st if st is not None and stat.S_ISREG(st.st_mode) else None


@lru_cache(maxsize=2048)
def _parse_json(path: str, signature: tuple[int, int, int]) -> dict[str, object] | None:
    try:
        value = jsonsafe.load_file(Path(path), max_bytes=jsonsafe.MAX_CONFIG_BYTES)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def read_json(tree: Path, rel: str) -> dict[str, object] | None:
    """A JSON object file of the tree (never through a link), or None."""
    st = _regular(tree / rel)
    if st is None:
        return None
    return _parse_json(str(tree / rel), (st.st_ino, st.st_size, st.st_mtime_ns))


def read_text(tree: Path, rel: str) -> str:
    """At most `_MAX_TEXT` bytes of a text file of the tree (never through a link); "" when unreadable."""
    if _regular(tree / rel) is None:
        return ""
    try:
        with (tree / rel).open("rb") as fh:
            return fh.read(_MAX_TEXT).decode("utf-8", "replace")
    except OSError:
        return ""


def rel_to(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name


def package_json(tree: Path, directory: str) -> dict[str, object] | None:
    return read_json(tree, rel_to(directory, "package.json"))


def entries(tree: Path, directory: str) -> tuple[str, ...]:
    """The names in a directory of the tree (capped), for finding config files by name."""
    try:
        with os.scandir(tree / directory if directory else tree) as it:
            names = []
            for entry in it:
                names.append(entry.name)
                if len(names) >= _MAX_ENTRIES:
                    break
    except OSError:
        return ()
    return tuple(sorted(names))


def dependencies(pkg: dict[str, object] | None) -> set[str]:
    found: set[str] = set()
    for key in ("devDependencies", "dependencies", "peerDependencies", "optionalDependencies"):
        value = (pkg or {}).get(key)
        if isinstance(value, dict):
            found.update(k for k in value if isinstance(k, str))
    return found


def _tokens(script: str) -> list[str]:
    try:
        lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:   # an unbalanced quote: words are enough to find a runner's name
        return script.split()


# Options of node that take their value as the next word (`--conditions development`): that word is no path.
NODE_VALUED = frozenset({"--conditions", "-C", "--import", "--require", "-r", "--loader", "--experimental-loader",
                         "--test-reporter", "--test-reporter-destination", "--test-name-pattern",
                         "--test-skip-pattern", "--test-concurrency", "--test-timeout", "--test-shard", "--env-file",
                         "--input-type", "--watch-path", "--test-coverage-include", "--test-coverage-exclude",
                         "--stack-size"})
_NODE_TEST_IMPORT = re.compile(r"""['"]node:test['"]""")
_MAX_DEPTH = 3   # `npm run` hops followed from scripts.test


def split_node_args(args: tuple[str, ...] | list[str]) -> tuple[list[str], list[str]]:
    """(node's options as written, each with its value; the paths) of the words after `node`. Without `--test`,
    what follows the first path (the script) is the script's own (`node test.js --bail`): neither."""
    options: list[str] = []
    paths: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if paths and "--test" not in options:
            break
        if arg == "--":
            paths += args[i + 1:] if "--test" in options else args[i + 1:i + 2]
            break
        if arg.startswith("-"):
            takes = arg in NODE_VALUED and i + 1 < len(args)
            options += [arg, args[i + 1]] if takes else [arg]
            i += 2 if takes else 1
            continue
        paths.append(arg)
        i += 1
    return options, paths


def _node_script(args: list[str], is_node_test: Callable[[str], bool] | None) -> bool:
    """Whether `node … FILE` runs a file of node:test tests (a plain `node test.js` runs them as `--test` would)."""
    _options, paths = split_node_args(args)
    return bool(paths) and is_node_test is not None and paths[0].endswith((".js", ".mjs", ".cjs")) and \
        is_node_test(paths[0])


def test_script(tree: Path, directory: str, pkg: dict[str, object]) -> tuple[str, tuple[str, ...]] | None:
    """The runner the package's scripts.test starts (`script_runner`), a plain `node FILE` of node:test tests
    included, that file read from the tree."""
    return script_runner(pkg, is_node_test=lambda path: _holds_node_tests(tree, directory, path))


def _holds_node_tests(tree: Path, directory: str, path: str) -> bool:
    """Whether the tree's file `path` (relative to the package `directory`) imports node:test; never a file
    outside the tree."""
    rel = posixpath.normpath(rel_to(directory, path.removeprefix("./")))
    if rel.startswith(("..", "/")) or _real_dirs(tree, rel)[0] != posixpath.dirname(rel):
        return False   # outside the tree, or through a link
    return bool(_NODE_TEST_IMPORT.search(read_text(tree, rel)))


def _command_runner(tokens: list[str], is_node_test: Callable[[str], bool] | None = None,
                    ) -> tuple[str, tuple[str, ...]] | None:
    """The runner the first command of `tokens` that names one runs, with the arguments after its name."""
    for i, token in enumerate(tokens):
        name = token.rsplit("/", 1)[-1].removesuffix(".js").removesuffix(".mjs")
        name = "mocha" if name == "_mocha" else name
        if name in (*JS_RUNNERS, "node"):
            args: list[str] = []
            for arg in tokens[i + 1:]:
                if arg in _OPERATORS:
                    break
                args.append(arg)
            if name != "node":
                return name, tuple(args)
            if "--test" in args or any(a.startswith("--test=") for a in args) or _node_script(args, is_node_test):
                return "node", tuple(args)
    return None


def script_runner(pkg: dict[str, object], script: str = "test", depth: int = 0,
                  is_node_test: Callable[[str], bool] | None = None) -> tuple[str, tuple[str, ...]] | None:
    """The runner `scripts[script]` starts, following `npm run X` (and yarn's, pnpm's, bun's) up to three hops,
    each in order (`npm run build && npm run test-api`: the first that runs one). `is_node_test(path)`: whether
    a file `node` runs holds node:test tests (then it is a `node --test` of that file)."""
    scripts = pkg.get("scripts")
    text = scripts.get(script) if isinstance(scripts, dict) else None
    if not isinstance(text, str):
        return None
    tokens = _tokens(text[:2000])
    found = _command_runner(tokens, is_node_test)
    if found is not None or depth >= _MAX_DEPTH:
        return found
    for i, token in enumerate(tokens[:-1]):
        pair = (token.rsplit("/", 1)[-1], tokens[i + 1])
        nxt = i + 2 if pair in _DELEGATES else i + 1 if pair[0] in ("yarn", "pnpm") else None
        if nxt is not None and nxt < len(tokens) and tokens[nxt] not in _OPERATORS and tokens[nxt] != script:
            found = script_runner(pkg, tokens[nxt], depth + 1, is_node_test)
            if found is not None:
                return found
    return None


@dataclass(frozen=True)
class JsProject:
    runner: str | None              # jest | vitest | mocha | node | None (nothing says)
    dir: str                        # the package directory that decided ("" for the root)
    why: str                        # what decided ("scripts.test of packages/a/package.json runs jest")
    args: tuple[str, ...] = ()      # the arguments its scripts.test gives the runner
    script: str = ""                # the text of that scripts.test

    def where(self) -> str:
        return rel_to(self.dir, "package.json")


_CONFIGS = (("jest", ("jest.config.",), "jest"), ("vitest", ("vitest.config.", "vitest.workspace."), ""),
            ("mocha", (".mocharc.",), "mocha"))
_VITE_TEST = re.compile(r"\btest\s*:")


def _by_config(tree: Path, directory: str, pkg: dict[str, object]) -> tuple[str, str] | None:
    names = entries(tree, directory)
    for runner, prefixes, key in _CONFIGS:
        name = next((n for n in names if n.startswith(prefixes)), None)
        if name is not None:
            return runner, f"{rel_to(directory, name)} configures {runner}"
        if key and key in pkg:
            return runner, f"{rel_to(directory, 'package.json')} configures {runner}"
    vite = next((n for n in names if n.startswith("vite.config.")), None)
    if vite is not None and _VITE_TEST.search(read_text(tree, rel_to(directory, vite))):
        return "vitest", f"the test section of {rel_to(directory, vite)} configures vitest"
    return None


def _decide(tree: Path, directory: str) -> JsProject | None:
    """What the package.json of `directory` (and its config files) say, cached while neither changes."""
    pkg_st, dir_st = _regular(tree / rel_to(directory, "package.json")), _lstat(tree / directory)
    if pkg_st is None or dir_st is None:
        return None
    return _decide_at(str(tree), directory, (pkg_st.st_ino, pkg_st.st_size, pkg_st.st_mtime_ns),
                      (dir_st.st_ino, dir_st.st_mtime_ns))


@lru_cache(maxsize=4096)
def _decide_at(root: str, directory: str, *_signature: tuple[int, ...]) -> JsProject | None:
    tree = Path(root)
    pkg = package_json(tree, directory)
    if pkg is None:
        return None
    where = rel_to(directory, "package.json")
    scripts = pkg.get("scripts")
    script = scripts.get("test") if isinstance(scripts, dict) else None
    found = test_script(tree, directory, pkg)
    if found is not None:
        return JsProject(found[0], directory, f"scripts.test of {where} runs {found[0]}", found[1],
                         script if isinstance(script, str) else "")
    config = _by_config(tree, directory, pkg)
    if config is not None:
        return JsProject(config[0], directory, config[1])
    deps = dependencies(pkg)
    for runner in JS_RUNNERS:
        if runner in deps:
            return JsProject(runner, directory, f"{where} depends on {runner}")
    return None


def _real_dirs(tree: Path, file: str) -> list[str]:
    """The directories from the file's own up to the root, each a real directory (no link on the way)."""
    parts = file.split("/")[:-1]
    dirs = [""]
    for i in range(1, len(parts) + 1):
        st = _lstat(tree.joinpath(*parts[:i]))
        if st is None or not stat.S_ISDIR(st.st_mode):
            break
        dirs.append("/".join(parts[:i]))
    return dirs[::-1]


def project_for(tree: Path, file: str) -> JsProject:
    """Which runner the project runs `file` with, and from which package directory."""
    nearest = None
    for directory in _real_dirs(tree, file):
        if _regular(tree / rel_to(directory, "package.json")) is None:
            continue
        nearest = directory if nearest is None else nearest
        decided = _decide(tree, directory)
        if decided is not None:
            return decided
    return JsProject(None, nearest or "", "no package.json names a test runner")


def installed(tree: Path, env: ProjectEnv, start: str, entry: str) -> tuple[str, Path] | None:
    """Where `entry` (``jest/bin/jest.js``) is as node finds it from the package directory `start`: in the
    node_modules of `start` or of a directory above it, bound from the project's environment
    (`ProjectEnv.mounts`) or held by the tree itself. (its sandbox path ``{root}/…``, its host path)."""
    parts = start.split("/") if start else []
    for i in range(len(parts), -1, -1):
        rel = rel_to("/".join(parts[:i]), f"node_modules/{entry}")
        host = host_path(env.mounts, rel)
        if host is None:
            inside = os.path.realpath(tree / rel)
            host = Path(inside) if inside.startswith(os.path.realpath(tree) + os.sep) else None
        if host is not None and host.is_file():
            return "{root}/" + rel, host
    return None


def package_dirs(tree: Path, limit: int = 500) -> list[str]:
    """Directories of the tree with a package.json ("" for the root), outside node_modules and .git, never
    through a link, at most `limit` of them."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules")
                             and not os.path.islink(os.path.join(dirpath, d)))
        if "package.json" in filenames:
            rel = os.path.relpath(dirpath, tree).replace(os.sep, "/")
            out.append("" if rel == "." else rel)
            if len(out) >= limit:
                break
    return out


def declared_test_script(tree: Path) -> str:
    """The first package.json of the tree whose `scripts.test` runs jest, vitest or mocha, said ("scripts.test
    of package.json runs jest"); empty when none does. Each of them fails a run that finds no test file, so a
    project that has none is not what its script says; `node --test` passes with none, and the files it finds
    are the ones its discovery here finds (node_script.py), so none found is none there."""
    for directory in package_dirs(tree):
        pkg = package_json(tree, directory)
        found = test_script(tree, directory, pkg) if pkg is not None else None
        if found is not None and found[0] in JS_RUNNERS:
            return f"scripts.test of {rel_to(directory, 'package.json')} runs {found[0]}"
    return ""


def js_files(tree: Path, suffixes: tuple[str, ...]) -> list[str]:
    """Files of the tree ending in `suffixes`, outside node_modules and .git, never through a link."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in _SKIP_DIRS and not os.path.islink(os.path.join(dirpath, d)))
        for name in filenames:
            if name.endswith(suffixes) and not os.path.islink(os.path.join(dirpath, name)):
                found.append(os.path.relpath(os.path.join(dirpath, name), tree).replace(os.sep, "/"))
    return sorted(found)


def relative_to_package(project: JsProject, file: str) -> str:
    return file[len(project.dir) + 1:] if project.dir else file


def runner_command(tree: Path, env: ProjectEnv, project: JsProject, entry: str | tuple[str, ...], args: list[str],
                   *, node_flags: tuple[str, ...] = (), extra_env: dict[str, str] | None = None,
                   launcher: str = "") -> Command:
    """node on the runner's own script `entry` (``jest/bin/jest.js``; several: the first installed, as a
    runner's versions name it differently) as the project installed it, in the package's directory; a
    Command that says so, and runs nothing, when the runner is not installed. `launcher`: a script of ours
    node runs instead, given the entry's path first (`_jest_run.cjs`)."""
    entries = (entry,) if isinstance(entry, str) else entry
    runner = entries[0].split("/", 1)[0]
    found = next((f for f in (installed(tree, env, project.dir, e) for e in entries) if f is not None), None)
    if found is None:
        return Command([], {}, problem=f"{runner} is not installed in node_modules ({project.why}): run npm ci")
    node = which("node") or "/usr/bin/node"
    options = test_node_options(node)
    argv = [node, *node_flags, *([launcher] if launcher else []), found[0], *args]
    return Command(argv, {**({"NODE_OPTIONS": options} if options else {}), **(extra_env or {})},
                   address_mb=NODE_ADDRESS_MB, cwd=project.dir)
