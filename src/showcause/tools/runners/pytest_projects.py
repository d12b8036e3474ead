"""The pytest projects of a tree: the root, and each package of a monorepo with a pytest configuration of its own.

A package (a directory below the root with `pyproject.toml`, `setup.py` or `setup.cfg`) that holds pytest
settings — `pytest.ini`/`.pytest.ini`, `[tool.pytest.ini_options]` (or pytest 9's `[tool.pytest]`) in
pyproject.toml, `[pytest]` in tox.ini, `[tool:pytest]` in setup.cfg — is collected and run in its own
directory, with its own settings, as its developers run it. These files are only looked at (a table header
found), never executed; symlinked ones are ignored. Directories pytest never recurses into by default
(`.*`, `build`, `dist`, `venv`, `node_modules`, `*.egg` …) are not searched.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from showcause.core import tomlsafe

__all__ = ["find_projects", "has_pytest_config", "project_of"]

_NO_RECURSE = {"build", "dist", "venv", "node_modules", "CVS", "_darcs", "{arch}", "__pycache__", "site-packages"}
_PACKAGE_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
_INI_HEADERS = {"tox.ini": re.compile(r"^\[pytest\]\s*$", re.M), "setup.cfg": re.compile(r"^\[tool:pytest\]\s*$", re.M)}
_MAX_CONFIG = 1_000_000


def _skipped(name: str) -> bool:
    return name.startswith(".") or name in _NO_RECURSE or name.endswith(".egg")


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _text(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(_MAX_CONFIG).decode("utf-8", "replace")
    except OSError:
        return ""


def has_pytest_config(directory: Path) -> bool:
    """Whether pytest would take a settings file from `directory` (the files pytest's own search looks at)."""
    if any(_regular(directory / name) for name in ("pytest.ini", ".pytest.ini")):
        return True
    pyproject = directory / "pyproject.toml"
    if _regular(pyproject):
        try:
            tool = tomlsafe.loads(_text(pyproject)).get("tool", {})
        except ValueError:   # pytest would refuse it too; the root collection then says so
            tool = {}
        if isinstance(tool, dict) and isinstance(tool.get("pytest"), dict):
            return True
    return any(_regular(directory / name) and pattern.search(_text(directory / name))
               for name, pattern in _INI_HEADERS.items())


def _is_project(tree: Path, rel: str) -> bool:
    directory = tree / rel
    return any(_regular(directory / f) for f in _PACKAGE_FILES) and has_pytest_config(directory)


def find_projects(tree: Path) -> list[str]:
    """"" (the root) and every package directory below it with pytest settings of its own, sorted."""
    found = [""]
    for dirpath, dirnames, _files in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if not _skipped(d) and not os.path.islink(os.path.join(dirpath, d)))
        rel = os.path.relpath(dirpath, tree).replace(os.sep, "/")
        if rel != "." and _is_project(tree, rel):
            found.append(rel)
    return found


def project_of(tree: Path, file: str) -> str:
    """The project a test file belongs to: its nearest enclosing package with pytest settings, else the root."""
    parts = file.split("/")[:-1]
    if any(_skipped(p) for p in parts) or any((tree / "/".join(parts[:i])).is_symlink()
                                              for i in range(1, len(parts) + 1)):
        return ""
    for end in range(len(parts), 0, -1):
        rel = "/".join(parts[:end])
        if _is_project(tree, rel):
            return rel
    return ""
