"""The import graph of a tree (tree-sitter): which files can be affected by a change.

Used to choose the tests a change can break and the files whose type errors it can change. When the
graph cannot tell (a change outside the code it knows, such as a config file), callers fall back to
everything.
"""

from __future__ import annotations

import posixpath

from showcause.analysis.codetext import file_class
from showcause.symbols import SymbolIndex

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


def _resolve(spec: str, importer: str, modules: dict[str, str], files: set[str]) -> list[str]:
    if spec.startswith("."):                       # JS/TS relative specifier
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        options = [base, *(base + ext for ext in (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")),
                   *(f"{base}/index{ext}" for ext in (".js", ".ts"))]
        return [o for o in options if o in files]
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
        specs |= {f"{spec}.{name}" for spec in list(specs) if not spec.startswith(".") for name in names}
    return specs


def dependents(index: SymbolIndex, changed: set[str]) -> set[str] | None:
    """Files that are changed or import a changed file (transitively); None when the graph cannot tell."""
    files = set(index.files)
    if {c for c in changed if file_class(c) != "prose"} - files:
        return None
    modules = _module_files(index)
    users: dict[str, set[str]] = {}
    for f in files:
        for target in {t for spec in _specs(index, f) for t in _resolve(spec, f, modules, files)}:
            users.setdefault(target, set()).add(f)
    seen = {c for c in changed if c in files}
    stack = list(seen)
    while stack:
        for user in users.get(stack.pop(), ()):
            if user not in seen:
                seen.add(user)
                stack.append(user)
    return seen
