"""When base's pytest collection stands for head's, so a warm review starts no collection process on head.

Why: collecting is a process start per project (seconds on a large suite, each review). What pytest collects
is decided by its configuration (ini files, and conftest.py files and the other plugins they load; the
environment's plugins are the same for both trees), by file names (`python_files`, `testpaths`, ignores) and,
for a file it makes a collector for, by that file's content. So head collects what base collected (less
deleted files) unless the change touches one of these:
- a pytest config file or any file with a config suffix, or a `conftest.py`: collect head (a `pyproject.toml`
  whose pytest tables are the same on both trees, read as data like `pytest_projects` reads them, is not
  one: a release that bumps its version keeps its collection);
- a plugin pytest loaded from the tree on base (`pytest_plugins`, `-p`): collect head;
- a file pytest made a collector for on base but found no test in (it may gain one): collect head;
- an added `.py` file (it may be a test file or a plugin), a deleted `__init__.py` (the package layout):
  collect head.
Anything else is covered: a changed test file base collected stays collected (run_test's allowlist keeps
base's files on head, and a file that stops giving results is a regression there), and a changed module
pytest never looked into is still decided by its name, which did not change. Only `.py` files are ever test
files of the allowlist. What this does not follow: a hook whose decision depends on another module's code or
content; a repository with one turns reuse off with `[tests] reuse_collection = false`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from showcause.core import tomlsafe
from showcause.snapshot.diff import FileChange

__all__ = ["reuse_refusal"]

_CONFIG_NAMES = frozenset({"pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "conftest.py"})
_CONFIG_SUFFIXES = frozenset({".ini", ".cfg", ".toml", ".pth"})
_MAX_CONFIG = 1_000_000


def _pytest_tables(tree: Path, path: str) -> object:
    """`[tool.pytest]` (its `ini_options` and pytest 9's own keys) of a regular pyproject.toml; raises
    ValueError when it cannot be read as TOML (then nothing is assumed)."""
    file = tree / path
    if not file.is_file() or file.is_symlink() or file.stat().st_size > _MAX_CONFIG:
        raise ValueError(f"{path} is not a readable file")
    tool = tomlsafe.loads(file.read_text(encoding="utf-8", errors="replace")).get("tool", {})
    return tool.get("pytest") if isinstance(tool, dict) else None


def _same_pytest_settings(trees: tuple[Path, Path] | None, path: str, change: FileChange) -> bool:
    if trees is None or PurePosixPath(path).name != "pyproject.toml" or change.status != "modified":
        return False
    try:
        return _pytest_tables(trees[0], path) == _pytest_tables(trees[1], path)
    except (OSError, ValueError):
        return False


def reuse_refusal(changes: Mapping[str, FileChange], sensitive: Iterable[str] | None,
                  trees: tuple[Path, Path] | None = None) -> str | None:
    """None when base's collection is head's too; else why head must be collected (for the log and tests).
    `sensitive`: base's `Collection.sensitive` (None: unknown, so never reused); `trees`: (base, head), to
    compare a changed pyproject.toml's pytest settings."""
    if sensitive is None:
        return "base's collection is not known file by file"
    watched = set(sensitive)
    for path, change in changes.items():
        name = PurePosixPath(path)
        if _same_pytest_settings(trees, path, change):
            continue
        if name.name in _CONFIG_NAMES or name.suffix in _CONFIG_SUFFIXES:
            return f"{path} can change what pytest collects"
        if path in watched:
            return f"{path} is a plugin pytest loaded, or a file it found no test in on base"
        if name.suffix != ".py":
            continue
        if change.status == "added":
            return f"{path} is new (it may be a test file or a plugin)"
        if change.status == "deleted" and name.name == "__init__.py":
            return f"{path} is gone (the package layout changed)"
    return None
