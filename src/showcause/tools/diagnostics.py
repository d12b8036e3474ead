"""Type-checker diagnostics: run pyright or tsc in the sandbox, parse, and match head against base."""

from __future__ import annotations

import importlib.util
import os
import re
import secrets
import shutil
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from showcause.core import jsonsafe
from showcause.core.hostproc import which
from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv
from showcause.sandbox.runner import ProcResult, run_sandboxed
from showcause.sandbox.toolchain import node_modules, pyright_node, tsc_native, tsc_path, v8_flags
from showcause.sandbox.workspace import fresh_copy
from showcause.snapshot.diff import Diff
from showcause.tools.basecache import cache_get, cache_put
from showcause.tools.runners.jsproject import installed

__all__ = ["CheckRun", "Diagnostic", "choose_checkers", "match_new", "parse_pyright", "parse_tsc",
           "run_base_checker", "run_checker", "tsc_for", "tsc_path"]

_TSC_LINE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning) (?P<code>TS\d+): "
                       r"(?P<msg>.*)$")
# A name holding a line break or a diagnostic's shape would make a line of tsc's output name another file:
# `src/a.js(3,5): error TS2322: x.js` reads as an error at src/a.js:3.
_TSC_LOOKALIKE = re.compile(r"[\r\n]|\(\d+,\d+\): (?:error|warning) TS\d+: ")


@dataclass(frozen=True)
class Diagnostic:
    file: str       # relative to the tree root
    line: int       # 1-based
    col: int        # 1-based
    code: str       # pyright rule or TSnnnn
    message: str    # first line only

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.file, self.code, self.message)

    def render(self) -> str:
        return f"{self.file}:{self.line}:{self.col} error {self.code}: {self.message}"


@dataclass(frozen=True)
class CheckRun:
    checker: str
    diagnostics: tuple[Diagnostic, ...]
    proc: ProcResult | None
    problem: str = ""
    tool: str = ""      # which checker ran ("tsc 5.9.3 from the project's node_modules"), said in the output


def _pyright_argv() -> list[str]:
    """node on pyright's bundled CLI script: the `pyright` console script is a Python wrapper that costs an
    interpreter start and its own checks on every call; the wrapper remains the fallback."""
    node = pyright_node()
    spec = importlib.util.find_spec("pyright")
    script = Path(spec.origin).parent / "dist" / "index.js" if spec is not None and spec.origin else None
    if node and script is not None and script.is_file():
        return [node, *v8_flags(node), str(script)]
    return [shutil.which("pyright", path=str(Path(sys.executable).parent)) or "pyright"]


def _version(package_json: Path) -> str:
    try:
        doc = jsonsafe.load_file(package_json, max_bytes=jsonsafe.MAX_CONFIG_BYTES)
    except (OSError, UnicodeDecodeError, ValueError):
        return "?"
    version = doc.get("version") if isinstance(doc, dict) else None
    return version if isinstance(version, str) else "?"


def tsc_for(tree: Path, env: ProjectEnv) -> tuple[list[str], str] | None:
    """The tsc to run on `tree` and what to call it: the project's own (``node_modules/typescript``, bound
    from its environment and run from there inside the sandbox) before showcause's bundled one.

    TypeScript 7's `tsc` is a node script that starts the native compiler of the platform package: that
    executable runs directly when it is there (half the time of a small check), else the script."""
    node = which("node") or "/usr/bin/node"
    own = installed(tree, env, "", "typescript/bin/tsc")
    if own is not None:
        sandbox, host = own
        label = f"tsc {_version(host.parents[1] / 'package.json')} from the project's node_modules"
        native = tsc_native(host)
        if native is not None:
            found = installed(tree, env, "", native.relative_to(host.parents[2]).as_posix())
            if found is not None and os.path.realpath(found[1]) == os.path.realpath(native):
                return [found[0]], label
        return [node, sandbox], label
    bundled = tsc_path()
    if bundled is None:
        return None
    label = f"tsc {_version(node_modules() / 'typescript' / 'package.json')} bundled with showcause"
    native = tsc_native(bundled)
    return ([str(native)] if native is not None else [node, str(bundled)]), label


def choose_checkers(root: Path, requested: str) -> list[str]:
    if requested in ("pyright", "tsc"):
        return [requested]
    if requested == "none":
        return []
    checkers = []
    if (root / "tsconfig.json").is_file() or (root / "jsconfig.json").is_file():
        checkers.append("tsc")
    if (root / "pyrightconfig.json").is_file() or any(root.rglob("*.py")):
        checkers.append("pyright")
    return checkers


def _relative(path: str, root: str) -> str | None:
    """Path relative to the sandbox root; None for anything outside it (never reported)."""
    path = path.replace("\\", "/")
    if path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1:]
    if not path.startswith("/") and ".." not in path.split("/"):
        return path.removeprefix("./")
    return None


def parse_pyright(stdout: str, root: str) -> list[Diagnostic] | None:
    """pyright's `--outputjson` report; None (the run failed) when it is not that report or beyond the caps
    of `jsonsafe`."""
    try:
        doc = jsonsafe.loads(stdout, max_bytes=jsonsafe.MAX_TOOL_JSON_BYTES)
        found = doc.get("generalDiagnostics", []) if isinstance(doc, dict) else None
        if not isinstance(found, list):
            return None
        out = []
        for d in found:
            if not isinstance(d, dict) or d.get("severity") != "error":
                continue
            rel = _relative(str(d.get("file", "")), root)
            if rel is None:
                continue
            start = d.get("range", {}).get("start", {})
            # pyright positions are 0-based.
            out.append(Diagnostic(rel, int(start.get("line", 0)) + 1, int(start.get("character", 0)) + 1,
                                  str(d.get("rule") or "pyright"), str(d.get("message", "")).splitlines()[0]
                                  if d.get("message") else ""))
    except (ValueError, TypeError, AttributeError):   # not JSON, too large or deep, or not pyright's shape
        return None
    return out


def _plain_names(root: Path) -> dict[str, str]:
    """Rename, in a throw-away copy, every file or directory whose name could forge a tsc line.

    Returns plain name -> original name; diagnostics are mapped back with `_original`.
    """
    names: dict[str, str] = {}
    token = secrets.token_hex(6)    # a name no repository can hold in advance, so mapping back is unambiguous
    for dirpath, dirnames, filenames in os.walk(root):
        for entries in (dirnames, filenames):
            for i, name in enumerate(entries):
                if not _TSC_LOOKALIKE.search(name):
                    continue
                ext = os.path.splitext(name)[1]
                plain = f"showcause-{token}-{len(names)}{ext if re.fullmatch(r'[.][A-Za-z0-9]{1,10}', ext) else ''}"
                os.rename(os.path.join(dirpath, name), os.path.join(dirpath, plain))
                names[plain] = name
                entries[i] = plain      # os.walk goes on into a renamed directory
    return names


def _original(diag: Diagnostic, names: dict[str, str]) -> Diagnostic:
    if not names:
        return diag
    return replace(diag, file="/".join(names.get(part, part) for part in diag.file.split("/")))


def parse_tsc(stdout: str, root: str) -> list[Diagnostic]:
    out = []
    for line in (raw.removesuffix("\r") for raw in stdout.split("\n")):
        m = _TSC_LINE.match(line)
        if not m or m["sev"] != "error":
            continue
        rel = _relative(m["file"], root)
        if rel is not None:
            out.append(Diagnostic(rel, int(m["line"]), int(m["col"]), m["code"], m["msg"]))
    return out


def _inside(tree: Path, diags: list[Diagnostic]) -> list[Diagnostic]:
    """Drop diagnostics in files reached through in-tree symlinks that lead outside the tree."""
    root = os.path.realpath(tree)
    return [d for d in diags if os.path.realpath(tree / d.file).startswith(root + os.sep)]


def run_checker(tree: Path, checker: str, policy: Policy, files: tuple[str, ...] | None = None,
                env: ProjectEnv | None = None) -> CheckRun:  # long: pyright's and tsc's command, then each parse
    """Run the checker over `tree` (or, for pyright, only over `files`: the others cannot change), with the
    project's installed packages (`env`) bound read-only; pyright resolves imports through its interpreter."""
    renamed: dict[str, str] = {}
    env = env or ProjectEnv()
    tool = ""
    with fresh_copy(tree) as dirs:
        if checker == "pyright":
            argv = [*_pyright_argv(), "--outputjson", "--pythonpath", env.python]
            if files is not None:
                present = [f for f in files if (tree / f).is_file()]
                if not present:
                    return CheckRun(checker, (), None)
                argv += [f"./{f}" for f in present]   # "./" so no file name can read as an option
        else:
            chosen = tsc_for(tree, env)
            if chosen is None:
                return CheckRun(checker, (), None, "tsc is not installed (run `make setup`)")
            argv, tool = [*chosen[0], "--noEmit", "--pretty", "false"], chosen[1]
            # tsc prints file names as they are: odd names are replaced in the copy, then mapped back.
            renamed = _plain_names(dirs.workspace)
            if (tree / "tsconfig.json").is_file():
                argv += ["-p", "tsconfig.json"]
        proc = run_sandboxed(argv, workspace=dirs.workspace, out_dir=dirs.out, policy=policy,
                             memory_mb=policy.process.typecheck_memory_mb,
                             env={"PYRIGHT_PYTHON_GLOBAL_NODE": "1", "NODE_OPTIONS": "--max-old-space-size=3072"},
                             mounts=env.mounts)
    if proc.timed_out:
        return CheckRun(checker, (), proc, f"{checker} was killed after the {proc.seconds:.0f} s wall timeout", tool)
    if checker == "pyright":
        parsed = parse_pyright(proc.stdout, proc.root)
        if parsed is None or proc.returncode not in (0, 1):
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])[:400]
            return CheckRun(checker, (), proc, f"pyright failed (exit {proc.returncode}): {tail}")
        return CheckRun(checker, tuple(_inside(tree, parsed)), proc)
    diags = _inside(tree, [_original(d, renamed) for d in parse_tsc(proc.stdout, proc.root)])
    # tsc 5 exits 2 and tsc 7 exits 1 when it reports errors; anything else non-zero without errors is a crash.
    if proc.returncode != 0 and not diags:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])[:400]
        return CheckRun(checker, (), proc, f"tsc failed (exit {proc.returncode}): {tail}", tool)
    return CheckRun(checker, tuple(diags), proc, tool=tool)


def match_new(head: list[Diagnostic], base: list[Diagnostic], diff: Diff) -> list[tuple[Diagnostic, bool]]:
    """Mark each head diagnostic new (True) or pre-existing, matching across line shifts.

    First pass: same file, code and message on the line the base line maps to. Second pass: the same
    key anywhere in the file, one base diagnostic per head diagnostic (so a second copy is new).
    """
    remaining = Counter[tuple[str, str, str]]()
    mapped: set[tuple[str, int, str, str]] = set()
    for b in base:
        change = diff.files.get(b.file)
        line = change.map_base_line(b.line) if change else b.line
        if line is not None:
            mapped.add((b.file, line, b.code, b.message))
        remaining[b.key] += 1
    result: list[tuple[Diagnostic, bool]] = []
    exact = [(h, (h.file, h.line, h.code, h.message) in mapped) for h in head]
    for h, hit in exact:
        if hit and remaining[h.key] > 0:
            remaining[h.key] -= 1
    for h, hit in exact:
        if hit:
            result.append((h, False))
        elif remaining[h.key] > 0:
            remaining[h.key] -= 1
            result.append((h, False))
        else:
            result.append((h, True))
    return result


def run_base_checker(tree: Path, checker: str, policy: Policy, files: tuple[str, ...] | None = None,
                     env: ProjectEnv | None = None) -> CheckRun:
    """`run_checker` on a base tree, through the base cache (successful runs only; keyed by the environment)."""
    env = env or ProjectEnv()
    chosen = tsc_for(tree, env) if checker == "tsc" else None
    extra = {"tsc": str(tsc_path()) if chosen is None else " ".join([*chosen[0], chosen[1]]),
             **env.cache_key()}
    target = checker if files is None else checker + "\n" + "\n".join(files)
    hit = cache_get(tree, "typecheck", target, policy, extra)
    if isinstance(hit, list):
        return CheckRun(checker, tuple(Diagnostic(*d) for d in hit), None, tool=chosen[1] if chosen else "")
    run = run_checker(tree, checker, policy, files, env)
    if not run.problem:
        rows = [[d.file, d.line, d.col, d.code, d.message] for d in run.diagnostics]
        cache_put(tree, "typecheck", target, policy, rows, extra)
    return run
