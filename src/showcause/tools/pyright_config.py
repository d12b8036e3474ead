"""Which files a project asks pyright to check: the `include` and `exclude` of its own configuration.

A typecheck scoped to the files a change can affect lists them on pyright's command line, and files named
there are checked whatever the configuration's `include` says. A project that checks only its package (`include =
["src/pkg"]`) would then also get its tests and examples checked: slower (their imports, such as pytest,
are parsed and bound too) and with errors the project never asked about. So the scope keeps only the
files the configuration covers.

The configuration is read from the BASE tree, like every other rule a review applies: a change cannot
drop its own files from the scope. pyright itself still reads the HEAD tree's configuration (a change may
legitimately need new settings, and checking it under the old ones could invent errors), and it applies
that `exclude` even to files named on its command line; so a change that edits pyright's settings is
reported (`settings_changed`) and the mechanical judge turns that into a WARNING.

`pyrightconfig.json` wins over `[tool.pyright]` in `pyproject.toml`, as in pyright. Anything unreadable
or unusual (an `include` that is not a list of strings, a malformed file) means no filtering: the scope
stays as it was.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from showcause.core import jsonsafe, tomlsafe
from showcause.core.globmatch import Glob, compile_glob

__all__ = ["PyrightFiles", "configured_files", "settings_changed"]


@dataclass(frozen=True)
class _Entry:
    """One `include`/`exclude` entry: a path or glob relative to the root, covering what it matches and
    everything below that (linear-time matching: the entry is the repository's text)."""

    glob: Glob | None   # None: the whole tree

    def covers(self, rel: str) -> bool:
        if self.glob is None:
            return True
        parts = rel.split("/")
        return any(self.glob.match("/".join(parts[:n])) for n in range(1, len(parts) + 1))


def _pattern(entry: str) -> _Entry | None:
    """The entry, or None when it names nothing here (outside the tree) or cannot be read as a glob."""
    rel = posixpath.normpath(entry.strip().removeprefix("./"))
    if rel in ("", ".") or entry.strip() in ("", "."):
        return _Entry(None)
    if rel.startswith(("/", "../")) or rel == "..":
        return None  # outside the tree: pyright would check nothing of it here
    glob = compile_glob(rel)
    return _Entry(glob) if glob is not None else None


@dataclass(frozen=True)
class PyrightFiles:
    include: tuple[_Entry, ...] | None  # None: everything
    exclude: tuple[_Entry, ...]
    source: str  # the file the settings came from

    def covers(self, rel: str) -> bool:
        if self.include is not None and not any(p.covers(rel) for p in self.include):
            return False
        return not any(p.covers(rel) for p in self.exclude)


def _patterns(value: Any) -> tuple[_Entry, ...] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    compiled = [_pattern(v) for v in value]
    return tuple(p for p in compiled if p is not None)


def _settings(root: Path) -> tuple[dict[str, Any], str] | None:
    config = root / "pyrightconfig.json"
    if config.is_file() and not config.is_symlink():
        try:
            # pyright accepts comments in this file; only the plain-JSON form is read here.
            doc = jsonsafe.load_file(config, max_bytes=jsonsafe.MAX_CONFIG_BYTES)
        except (OSError, ValueError):   # unreadable, not plain JSON, or beyond the caps of jsonsafe
            return None
        return (doc, "pyrightconfig.json") if isinstance(doc, dict) else None
    project = root / "pyproject.toml"
    if project.is_file() and not project.is_symlink():
        try:
            doc = tomlsafe.load_file(project)
        except (OSError, ValueError):   # unreadable, not TOML, or beyond the caps of tomlsafe
            return None
        section = doc.get("tool", {}).get("pyright") if isinstance(doc.get("tool"), dict) else None
        return (section, "pyproject.toml [tool.pyright]") if isinstance(section, dict) else None
    return None


def configured_files(root: Path) -> PyrightFiles | None:
    """The include/exclude filter of the project at ``root``, or None when there is nothing to apply."""
    found = _settings(root)
    if found is None:
        return None
    settings, source = found
    given = settings.get("include")
    include = _patterns(given) if given is not None else None
    exclude = _patterns(settings["exclude"]) if "exclude" in settings else ()
    if (given is not None and include is None) or exclude is None:
        return None
    if given == []:  # pyright's default, the whole root, as if it were absent
        include = None
    if include is None and not exclude:
        return None
    return PyrightFiles(include, exclude, source)


def settings_changed(base: Path, head: Path) -> str | None:
    """Where pyright's settings differ between the trees (the file on head, or on base if head has none), or
    None when they are the same (both absent included)."""
    old, new = _settings(base), _settings(head)
    if old == new:
        return None
    return (new or old or ({}, "pyright configuration"))[1]
