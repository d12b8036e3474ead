"""Whether a change edits the project's dependencies, found in the text of its changed lines.

Tests and type checks run in one environment for base and head (`sandbox/projectenv.py`): nothing is
installed during a review, so head's new or changed dependencies are not there. A change to a lockfile or
a requirements file, or a changed line inside a dependency list of pyproject.toml, setup.cfg, setup.py or
package.json, is reported so the review can say what it could not verify. Text only: nothing is parsed as
code or run.
"""

from __future__ import annotations

import re

from showcause.snapshot import FileChange, Snapshot

__all__ = ["dependency_edits", "dependency_regions"]

# Files that are all dependencies: any change counts.
_WHOLE = {"poetry.lock", "uv.lock", "Pipfile", "Pipfile.lock", "pdm.lock", "package-lock.json",
          "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml"}
_REQUIREMENTS = re.compile(r"(?:^|/)(?:requirements[^/]*|requirements/[^/]+|constraints[^/]*)\.(?:txt|in)\Z")
_DOC_WORDS = frozenset({"docs", "doc", "documentation", "sphinx", "mkdocs"})
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')
_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r'^\s*([A-Za-z0-9_.\-"\']+?)\s*=')
_INI_KEY = re.compile(r"^([A-Za-z0-9_.\-]+)\s*[=:]")
_SETUP_PY = re.compile(r"\b(install_requires|extras_require|tests_require)\b")
_PACKAGE_JSON = re.compile(r'"(dependencies|devDependencies|optionalDependencies|peerDependencies)"\s*:')
_POETRY = re.compile(r"tool\.poetry(?:\.group\.[^.]+)?\.(?:dev-)?dependencies")


def _toml_label(table: str, key: str | None) -> str | None:
    """The declaration a key of a pyproject table is (None: not a dependency list); `key` None: the table
    itself, when every key in it is one."""
    if table in ("project.optional-dependencies", "dependency-groups", "tool.pdm.dev-dependencies") or \
            _POETRY.fullmatch(table):
        return f"[{table}]"
    key = key.strip("\"'").split(".", 1)[0] if key else None
    if (table == "project" and key in ("dependencies", "optional-dependencies")) or \
            (table, key) in (("tool.uv", "dev-dependencies"), ("tool.poetry", "dependencies")):
        return f"[{table}] {key}"
    return None


def _pyproject(lines: list[str]) -> dict[int, str]:
    labels: dict[int, str] = {}
    table, label, depth = "", None, 0
    for n, line in enumerate(lines, 1):
        bare = _STRINGS.sub('""', line).split("#", 1)[0]   # strings first: a '#' inside one is no comment
        if depth == 0:
            if m := _TABLE.match(bare):
                table = m[1].replace(" ", "")
                label = _toml_label(table, None)
            elif m := _TOML_KEY.match(line):
                label = _toml_label(table, m[1])
        if label and bare.strip():
            labels[n] = label
        # Inside a multi-line array or inline table no line starts a key.
        depth = max(0, depth + bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}"))
    return labels


def _setup_cfg(lines: list[str]) -> dict[int, str]:
    labels: dict[int, str] = {}
    section, key = "", ""
    for n, line in enumerate(lines, 1):
        if m := _TABLE.match(line):
            section, key = m[1], ""
            continue
        if m := _INI_KEY.match(line):
            key = m[1]
        if line.strip() and (section == "options.extras_require" or (section == "options" and key in (
                "install_requires", "tests_require"))):
            labels[n] = f"[{section}] {key}" if section == "options" else f"[{section}]"
    return labels


def _bracketed(lines: list[str], start: re.Pattern[str]) -> dict[int, str]:
    """From a line matching `start` to the line where the brackets opened after the match close again."""
    labels: dict[int, str] = {}
    label, depth = "", 0
    for n, line in enumerate(lines, 1):
        bare = _STRINGS.sub('""', line)
        m = start.search(line) if not label else None
        if m:
            label, depth, bare = m[1], 0, _STRINGS.sub('""', line[m.end():])
        if label:
            labels[n] = label
            depth += sum(bare.count(c) for c in "[{(") - sum(bare.count(c) for c in "]})")
            if depth <= 0:
                label = ""
    return labels


def dependency_regions(name: str, text: str) -> dict[int, str]:
    """Line number -> the dependency declaration it lies in, for one file (by its base name)."""
    lines = text.splitlines()
    if name == "pyproject.toml":
        return _pyproject(lines)
    if name == "setup.cfg":
        return _setup_cfg(lines)
    if name == "setup.py":
        return _bracketed(lines, _SETUP_PY)
    if name == "package.json":
        return _bracketed(lines, _PACKAGE_JSON)
    return {}


def _read(snapshot: Snapshot, side: str, path: str) -> str:
    try:
        return (snapshot.tree(side) / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _for_docs(path: str) -> bool:
    """A requirements file of the documentation build (`docs/requirements.txt`, `requirements/docs.in`):
    nothing the tests import comes from it, so its edits leave the review's evidence as it was."""
    parts = path.lower().split("/")
    return bool(_DOC_WORDS.intersection(parts[:-1])) or parts[-1].split(".", 1)[0] in _DOC_WORDS


def _edited(snapshot: Snapshot, path: str, change: FileChange) -> list[str]:
    name = path.rsplit("/", 1)[-1]
    if _REQUIREMENTS.search(path) and _for_docs(path):
        return []
    if name in _WHOLE or _REQUIREMENTS.search(path):
        return [path]
    if name not in ("pyproject.toml", "setup.cfg", "setup.py", "package.json"):
        return []
    head = dependency_regions(name, _read(snapshot, "head", path)) if change.added else {}
    base = dependency_regions(name, _read(snapshot, "base", path)) if change.removed else {}
    found = sorted({head[n] for n in change.added if n in head} | {base[n] for n in change.removed if n in base})
    return [f"{path} ({label})" for label in found]


def dependency_edits(snapshot: Snapshot) -> list[str]:
    """The dependency files and declarations the change edits, e.g. ``uv.lock``,
    ``pyproject.toml ([project] dependencies)``, ``package.json (devDependencies)``."""
    out: list[str] = []
    for path, change in sorted(snapshot.diff.files.items()):
        out += _edited(snapshot, path, change)
    return out
