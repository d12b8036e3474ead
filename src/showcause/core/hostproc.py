"""How showcause starts a trusted program on the host, so that nothing of the reviewed tree runs in it.

Host processes (git, ripgrep, the symbol-index workers, node asked for its V8 options, a key command) run
with the user's rights, outside the sandbox.  Three things would let a reviewed tree into one of them:

* a relative PATH entry (``""``, ``"."``, ``node_modules/.bin``): a program name resolves inside the
  directory the lookup happens in — ours, or a child's working directory after its ``chdir`` — which is
  often the reviewed checkout.  So programs are resolved here to absolute paths, through a PATH that keeps
  only absolute directories, and children get that PATH too;
* an interpreter started in the tree: ``python -c`` puts its working directory first on ``sys.path``.
  So Python children run isolated (``-I``: no working or script directory on ``sys.path``, no ``PYTHON*``
  variables, no user site-packages) from :data:`HOST_CWD`, and find showcause through its parent directory,
  named explicitly;
* the user's environment: API keys, and variables that make an interpreter load code (``PYTHONPATH``,
  ``PYTHONSTARTUP``, ``NODE_OPTIONS``, ``NODE_PATH`` …).  So a child's environment is built from an
  allowlist (:func:`host_env`), not copied.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["HOST_CWD", "host_env", "isolated_python", "safe_path", "sanitize_process_path", "which"]

HOST_CWD = "/"  # working directory of host children that need none: never the user's, never the tree
_FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"
_LOCALE = ("LANG", "LC_ALL", "LC_CTYPE")  # so a child decodes file names as this process does
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])  # the directory `showcause` is imported from
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


def safe_path(path: str | None = None) -> str:
    """``path`` (default: this process's PATH) without empty, ``.`` or other relative entries, in order,
    without duplicates; the system directories if nothing is left."""
    raw = os.environ.get("PATH", os.defpath) if path is None else path
    kept: list[str] = []
    for entry in raw.split(os.pathsep):
        if os.path.isabs(entry):
            entry = os.path.normpath(entry)
            if entry not in kept:
                kept.append(entry)
    return os.pathsep.join(kept) if kept else _FALLBACK_PATH


def which(name: str) -> str | None:
    """The absolute path of program ``name`` on :func:`safe_path`, or None."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"a program name, not a path: {name!r}")
    found = shutil.which(name, path=safe_path())
    return os.path.abspath(found) if found else None  # already absolute: every directory searched is


def host_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A host child's environment: the sanitized PATH and the locale, then ``extra``; nothing else of ours."""
    env = {key: os.environ[key] for key in _LOCALE if key in os.environ}
    env["PATH"] = safe_path()
    env.update(extra or {})
    return env


def isolated_python(module: str, function: str = "main") -> list[str]:
    """argv that runs ``module.function()`` of this showcause in an isolated interpreter and exits with its
    return value.  Start it with ``cwd=HOST_CWD`` and ``env=host_env()``."""
    if not _DOTTED.match(module) or not function.isidentifier():
        raise ValueError(f"not a module and function name: {module!r}, {function!r}")
    if not sys.executable:
        raise RuntimeError("no Python interpreter to start (sys.executable is empty)")
    code = f"import sys; sys.path.insert(0, sys.argv[1]); from {module} import {function}; sys.exit({function}())"
    return [os.path.abspath(sys.executable), "-I", "-c", code, _PACKAGE_PARENT]


def sanitize_process_path() -> None:
    """Drop relative entries from this process's own PATH: then even a lookup that does not go through
    :func:`which` (``shutil.which``, a bare name given to ``subprocess``) cannot resolve into the working
    directory.  For entry points (the CLI), which own their process."""
    os.environ["PATH"] = safe_path()
