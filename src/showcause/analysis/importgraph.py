"""The import graph of a tree (tree-sitter): which files can be affected by a change.

Used to choose the tests a change can break and the files whose type errors it can change. When the
graph cannot tell (a change outside the code it knows, such as a config file), callers fall back to
everything.
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path

from showcause.analysis.codetext import file_class
from showcause.core import jsonsafe
from showcause.symbols import DYNAMIC_IMPORT, SymbolIndex

__all__ = ["dependents"]


def _module_files(index: SymbolIndex) -> dict[str, str]:
    """Dotted Python module name -> file, for every suffix of the path (src layouts, flat layouts)."""
    out: dict[str, str] = {}
    for rel in index.files:
        if not rel.endswith((".py", ".pyi")):
            continue
        parts = rel.rsplit(".", 1)[0].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for i in range(len(parts)):
            out.setdefault(".".join(parts[i:]), rel)
    return out


_JS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
# TypeScript imports its own files by the name they compile to (`./sum.js` for sum.ts).
_TS_SOURCE = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_MAX_PACKAGES = 500
_DEPENDENCY_KEYS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
# node's own modules (`node:` prefixed or not; `fs/promises` is `fs`'s): never a file of the tree.
_NODE_BUILTINS = frozenset({
    "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto", "dgram",
    "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2", "https", "inspector", "module", "net",
    "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl", "stream",
    "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm", "wasi",
    "worker_threads", "zlib", "test"})


class _Layout:
    """What a JavaScript specifier can name in the indexed tree: its files, each directory's files, and the
    workspace packages (a directory with a package.json `name`)."""

    def __init__(self, index: SymbolIndex, files: set[str]) -> None:
        self.files = files
        self.below: dict[str, list[str]] = {}
        for f in sorted(files):
            parts = f.split("/")
            for i in range(len(parts)):
                self.below.setdefault("/".join(parts[:i]), []).append(f)
        self.packages: dict[str, str] = {}
        self.declared: set[str] = set()   # what any package.json of the tree depends on: installed, not ours
        for d in list(self.below)[:_MAX_PACKAGES]:
            doc = _package_json(index.root / d / "package.json" if d else index.root / "package.json")
            name = doc.get("name")
            if isinstance(name, str) and name:
                self.packages.setdefault(name, d)
            for key in _DEPENDENCY_KEYS:
                deps = doc.get(key)
                self.declared |= set(deps) if isinstance(deps, dict) else set()

    def relative(self, spec: str, importer: str) -> list[str] | None:
        """The files a relative specifier can name; None when it names nothing the graph knows (unknown: every
        file could be reached through it)."""
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        if base in (".", ""):   # `require('../')` from test/: the package root, a directory like any other
            base = ""
        if base == ".." or base.startswith("../"):
            return []   # outside the tree: nothing of it is indexed, nothing here changes it
        stem, ext = posixpath.splitext(base)
        where = f"{base}/" if base else ""
        options = [base, *(base + e for e in _JS), *(f"{where}index{e}" for e in _JS),
                   *(stem + e for e in _TS_SOURCE.get(ext, ()))]
        hits = [o for o in options if o in self.files]
        if hits:
            return hits
        # A directory imported through its package.json `main` (or `exports`): any of its files may be it.
        below = self.below.get(base)
        return list(below) if below else None

    def package(self, spec: str) -> list[str] | None:
        """Every file of the workspace package a bare specifier (`@scope/pkg`, `pkg/sub`) names; none for node's
        own modules and the packages the tree's package.json files depend on (installed, not the tree's); None
        for anything else: a path alias (tsconfig `paths`, jest's `moduleNameMapper`, vite's `resolve.alias`:
        `@/debug`), a `baseUrl` import, a package no manifest names — unknown, so anything may be reached."""
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        d = self.packages.get(name)
        if d is not None:
            return list(self.below.get(d, []))
        if spec.startswith("node:") or parts[0] in _NODE_BUILTINS or name in self.declared:
            return []
        return None


def _package_json(path: Path) -> dict[str, object]:
    """A package.json as data (a regular file only); empty when there is none or it cannot be read."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return {}
        doc = jsonsafe.load_file(path, max_bytes=jsonsafe.MAX_CONFIG_BYTES)
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _resolve(spec: str, importer: str, modules: dict[str, str], layout: _Layout) -> list[str] | None:
    """The files `spec` names from `importer`; None when a relative JavaScript specifier names nothing the
    graph knows (a data file it does not index, a generated file), a bare one is neither a workspace package
    nor an installed one (a path alias), or a run-time import names a computed module: then anything may be
    reached."""
    if spec == DYNAMIC_IMPORT:
        return None
    if importer.endswith(_JS):
        if spec.startswith("."):                   # JS/TS relative specifier
            return layout.relative(spec, importer)
        return layout.package(spec)
    parts = spec.split(".")
    for i in range(len(parts), 0, -1):             # `pkg.mod.attr` -> pkg.mod, then pkg
        hit = modules.get(".".join(parts[:i]))
        if hit:
            return [hit]
    return []


def _specs(index: SymbolIndex, file: str) -> set[str]:
    """Import specifiers of a file; for Python also `pkg.name` for every imported name, since
    `from pkg import mod` may import a submodule (pairing every package with every name over-approximates,
    which only ever selects more)."""
    specs = set(index.imports(file))
    if file.endswith((".py", ".pyi")):
        names = {h.name for h in index.definitions(file) if h.detail == "import"}
        specs |= {f"{spec}.{name}" for spec in list(specs) if not spec.startswith((".", DYNAMIC_IMPORT))
                  for name in names}
    return specs


def dependents(index: SymbolIndex, changed: set[str]) -> set[str] | None:
    """Files that are changed or import a changed file (transitively), and every file with an import the graph
    cannot resolve (with what imports it); None when the graph cannot tell at all."""
    files = set(index.files)
    if {c for c in changed if file_class(c) != "prose"} - files:
        return None
    modules = _module_files(index)
    layout = _Layout(index, files)
    users: dict[str, set[str]] = {}
    unknown: set[str] = set()   # files with an import the graph cannot resolve: unknown means affected
    for f in files:
        for spec in _specs(index, f):
            targets = _resolve(spec, f, modules, layout)
            if targets is None:
                unknown.add(f)
            for target in targets or ():
                users.setdefault(target, set()).add(f)
    seen = {c for c in changed if c in files} | (unknown if changed else set())
    stack = list(seen)
    while stack:
        current = stack.pop()
        # pytest loads a conftest.py for every test below its directory (its fixtures and hooks), imported or not.
        reached = layout.below.get(posixpath.dirname(current), []) if _is_conftest(current) else []
        for user in (*users.get(current, ()), *reached):
            if user not in seen:
                seen.add(user)
                stack.append(user)
    return seen


def _is_conftest(path: str) -> bool:
    return path.rsplit("/", 1)[-1] == "conftest.py"
