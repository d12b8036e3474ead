"""Whether a project is set up for type checking, read from file names and config text on the host (as data).

The mechanical judge type-checks a language only where the project does: a checker's config (pyrightconfig.json,
`[tool.pyright]` or `[tool.mypy]` in pyproject.toml, mypy.ini, setup.cfg's `[mypy]`, tsconfig.json or
jsconfig.json) or types it ships (`py.typed`, `.pyi` stubs). Elsewhere a checker's run costs more than the
project's own tests and reports what the project never promised (an untyped library's errors are its style).
A tree too large to look through is treated as set up: unknown means check.
"""

from __future__ import annotations

import os
from pathlib import Path

from showcause.snapshot.snapshot import ENVIRONMENT_DIRS
from showcause.tools.diagnostics import choose_checkers

__all__ = ["NO_TYPE_SETUP", "checkers_for_project"]

NO_TYPE_SETUP = ("Python is not type-checked: the project has no type-checking set-up (pyrightconfig.json, "
                 "[tool.pyright] or [tool.mypy], mypy.ini, setup.cfg [mypy], py.typed, .pyi stubs); "
                 "`[process] typecheck_needs_setup = false` checks it anyway")
_MAX_ENTRIES = 50_000     # directory entries looked at before the answer is "set up"
_MAX_CONFIG_BYTES = 1_000_000
_SKIP = ENVIRONMENT_DIRS | {".git", "site-packages"}


def _text(path: Path) -> str:
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > _MAX_CONFIG_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _configured(root: Path) -> bool:
    """A Python checker's config at the root."""
    if any((root / n).is_file() for n in ("pyrightconfig.json", "mypy.ini", ".mypy.ini")):
        return True
    pyproject = _text(root / "pyproject.toml")
    if any(line.strip().startswith(("[tool.pyright", "[tool.mypy")) for line in pyproject.splitlines()):
        return True
    return any(line.strip().startswith("[mypy") for line in _text(root / "setup.cfg").splitlines())


def _ships_types(root: Path) -> bool:
    """A `py.typed` marker or a `.pyi` stub anywhere outside environment directories (bounded walk)."""
    seen = 0
    for _dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP and not d.endswith(".egg-info")]
        seen += len(dirnames) + len(filenames)
        if any(f == "py.typed" or f.endswith(".pyi") for f in filenames) or seen > _MAX_ENTRIES:
            return True
    return False


def checkers_for_project(root: Path, requested: str, *, without_setup: bool = False,
                         base: Path | None = None) -> tuple[list[str], list[str]]:
    """(the checkers to run on `root`, the ones left out for want of a set-up). `requested` other than "auto" (a
    case's or a caller's explicit checker) and `without_setup` (the policy's `[process] typecheck_needs_setup =
    false`) keep every checker `choose_checkers` finds. A set-up on `base` counts too: a change that deletes
    the project's type-checking config is still checked under it."""
    checkers = choose_checkers(root, requested)
    if requested != "auto" or without_setup or "pyright" not in checkers:
        return checkers, []   # tsc is chosen only by a tsconfig.json or jsconfig.json: a set-up already
    if any(_configured(tree) or _ships_types(tree) for tree in (root, *([base] if base else []))):
        return checkers, []
    return [c for c in checkers if c != "pyright"], ["pyright"]
