"""The project's Python: the interpreter, and the packages installed for it, that its tests and pyright use.

Chosen in this order: `--python PATH`, `[sandbox] python` of the user's own `--config`, the active
`VIRTUAL_ENV`, `<source>/.venv` or `<source>/venv` when it holds `bin/python`, else showcause's own. It is
decided on the host by looking at files only (symlinks resolved, `pyvenv.cfg` read, the executable's first
bytes checked), never by starting the interpreter: nothing of the project's environment runs outside the
sandbox. In the sandbox the virtualenv and the real interpreter's installation are bound read-only, and the
copy under review also appears at the repository's own absolute path, so an editable install (whose `.pth`
file or finder names that path) imports the reviewed tree, never the user's working tree.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from showcause.core.errors import InputError
from showcause.core.jsonsafe import read_capped
from showcause.sandbox.mounts import SANDBOX_HOME, SANDBOX_OUT, SANDBOX_ROOT, Mount, ro_prefixes

__all__ = ["PythonEnv", "project_python"]

_ELF = b"\x7fELF"
# What the mount plan itself places: the copy cannot also appear at a path that overlaps one of these.
_PLAN_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/proc", "/dev", SANDBOX_ROOT,
               SANDBOX_OUT, SANDBOX_HOME)
_INSTALLED = (".dist-info", ".egg-info", ".egg-link", ".pth")


@dataclass(frozen=True)
class PythonEnv:
    python: str                  # the interpreter as the sandbox sees it (may start with {root})
    origin: str                  # where it came from, in words
    mounts: tuple[Mount, ...]
    notes: tuple[str, ...]
    packages: str                # a digest of what is installed for it (its distributions and .pth files)


class _NotPython(Exception):
    pass


@dataclass(frozen=True)
class _Found:
    venv: str         # realpath of the virtualenv, "" when the interpreter is an installation of its own
    prefix: str       # realpath of the real interpreter's installation
    real: str         # realpath of the executable
    name: str         # the executable's name as given (bin/<name> of the virtualenv)
    config: str       # the text of pyvenv.cfg


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _overlap(a: str, b: str) -> bool:
    return _inside(a, b) or _inside(b, a)


def _venv_config(venv: Path) -> tuple[str, dict[str, str]]:
    cfg = venv / "pyvenv.cfg"
    try:
        text = read_capped(cfg, 65536)
    except (OSError, ValueError, UnicodeDecodeError):
        return "", {}
    keys = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            keys[key.strip().lower()] = value.strip()
    return text, keys


def _inspect(path: Path) -> _Found:
    """What `path` (an interpreter, or a virtualenv directory) is, from its files; _NotPython says why not."""
    path = Path(os.path.abspath(os.path.expanduser(path)))
    if path.is_dir():
        path = path / "bin" / "python"
    if not os.path.lexists(path):
        raise _NotPython(f"{path} does not exist")
    real = os.path.realpath(path)
    if not os.path.isfile(real) or not os.access(real, os.X_OK):
        raise _NotPython(f"{path} is not an executable file")
    with open(real, "rb") as fh:
        if fh.read(4) != _ELF:
            raise _NotPython(f"{path} is not a Python interpreter but a script (a shim?): name the interpreter "
                             "itself, e.g. .venv/bin/python")
    venv_dir = path.parent.parent
    text, keys = _venv_config(venv_dir) if (venv_dir / "pyvenv.cfg").is_file() else ("", {})
    venv = os.path.realpath(venv_dir) if text else ""
    prefix = os.path.dirname(os.path.dirname(real))
    if venv and _inside(real, venv) and keys.get("home"):   # a copied interpreter (venv --copies)
        prefix = os.path.dirname(os.path.realpath(keys["home"]))
    if not glob.glob(os.path.join(glob.escape(prefix), "lib", "py*", "os.py")):
        raise _NotPython(f"{path} is not a Python interpreter: no standard library under {prefix}/lib")
    found = _Found(venv, prefix, real, path.name, text)
    _narrow(found, path)
    return found


def _narrow(found: _Found, path: Path) -> None:
    """The sandbox binds the installation and the virtualenv read-only: neither may be `/` or a directory
    that holds the repository under review (`home = /` in a committed pyvenv.cfg would bind the host's root)."""
    for what, place in (("installation", found.prefix), ("virtualenv", found.venv)):
        if place == "/":
            raise _NotPython(f"{path}: its {what} would be the whole file system (`/`); the project's environment "
                             "must be a real installation, which the sandbox binds as narrowly as it is")


def _site_dirs(found: _Found) -> list[str]:
    dirs = glob.glob(os.path.join(glob.escape(found.venv), "lib", "py*", "site-packages")) if found.venv else []
    if not found.venv or "include-system-site-packages = true" in found.config.lower():
        dirs += glob.glob(os.path.join(glob.escape(found.prefix), "lib", "py*", "site-packages"))
        if found.prefix == "/usr":
            dirs += ["/usr/lib/python3/dist-packages", *glob.glob("/usr/local/lib/python3*/dist-packages")]
    return dirs


def _packages(found: _Found) -> str:
    """A digest of what is installed: when it changes, base results cached for this interpreter no longer apply."""
    h = hashlib.sha256(f"{found.real}\n{found.config}".encode())
    for site in _site_dirs(found):
        try:
            names = sorted(n for n in os.listdir(site) if n.endswith(_INSTALLED))
        except OSError:
            continue
        for name in names:
            h.update(f"\n{site}/{name}".encode())
            if name.endswith(".pth"):   # an editable install's path lives here
                with contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
                    h.update(read_capped(Path(site, name), 65536).encode())
    return h.hexdigest()


_QUOTED_PATH = re.compile(r"""['"](/[^'"\n]+)['"]""")


def _named_paths(found: _Found) -> list[str]:
    """The absolute paths the environment's `.pth` files and editable finders name (a plain line, or a quoted
    path in an `import` line or a finder's mapping)."""
    named: list[str] = []
    for site in _site_dirs(found):
        try:
            names = sorted(n for n in os.listdir(site) if n.endswith(".pth") or
                           (n.startswith("__editable__") and n.endswith("finder.py")))
        except OSError:
            continue
        for name in names:
            with contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
                text = read_capped(Path(site, name), 65536)
                plain = [ln.strip() for ln in text.splitlines() if name.endswith(".pth") and ln.startswith("/")]
                named += plain + _QUOTED_PATH.findall(text)
    return named


def _aliases(found: _Found, given: str, real: str) -> list[str]:
    """Other absolute paths of the repository the environment may import it through: the path it was given by
    (a symlink to it), and each path-prefix of a named path that resolves into it. The reviewed copy appears
    at each, so that an editable install made through a symlink imports the copy, never an installed
    package of the same name the path would otherwise fall through to."""
    found_at = {given} if given != real else set()
    for path in _named_paths(found):
        resolved = os.path.realpath(path)
        if not _inside(resolved, real):
            continue
        rel, named = os.path.relpath(resolved, real), path.rstrip("/")
        if rel == ".":
            found_at.add(named)
        elif named.endswith("/" + rel):   # the named path's own tail inside the repository: the rest leads to it
            found_at.add(named[: -len(rel) - 1])
    return sorted(a for a in found_at if a != real)


def _place(path: str, source: str | None) -> str:
    """Where `path` appears in the sandbox: inside the copy when it lies inside the reviewed repository."""
    if source and _inside(path, source) and path != source:
        return "{root}/" + os.path.relpath(path, source)
    return path


def _layout(found: _Found, source: str | None, aliases: tuple[str, ...] = ()) -> tuple[str, list[Mount], list[str]]:
    """(the interpreter as the sandbox sees it, the binds and the link it needs, notes)."""
    visible = ["/usr", *ro_prefixes()]
    wanted = sorted({p for p in (found.venv, found.prefix) if p and not any(_inside(p, v) for v in visible)})
    wanted = [p for p in wanted if not any(o != p and _inside(p, o) for o in wanted)]
    mounts = [Mount("ro", _place(p, source), p) for p in wanted]
    if found.venv:
        python = os.path.join(_place(found.venv, source), "bin", found.name)
    else:
        python = os.path.join(_place(found.prefix, source), os.path.relpath(found.real, found.prefix))
    notes: list[str] = []
    for place in [source, *aliases] if source else []:
        taken = [*_PLAN_PATHS, *ro_prefixes(), *(m.dst for m in mounts if not m.dst.startswith("{root}"))]
        clash = next((t for t in taken if _overlap(place, t)), None)
        if clash is None:
            mounts.append(Mount("symlink", place, SANDBOX_ROOT))
        else:
            notes.append(f"the reviewed copy cannot also appear at {place} in the sandbox (it overlaps {clash}): "
                         "an editable install of the repository imports nothing there")
    return python, mounts, notes


def _holding(found: _Found, source: str | None) -> str | None:
    """Why `found` may not be used for a review of `source`: its installation or virtualenv holds the
    repository (binding it would show the working tree and more beside the reviewed copy)."""
    for what, place in (("installation", found.prefix), ("virtualenv", found.venv)):
        if place and source and _inside(source, place):
            return (f"its {what} {place} holds the repository under review; the project's environment must be a "
                    "real installation, which the sandbox binds as narrowly as it is")
    return None


def _explicit(path: Path | str, what: str, source: str | None = None) -> _Found:
    try:
        found = _inspect(Path(path))
    except _NotPython as exc:
        raise InputError(f"{what}: {exc}") from None
    why = _holding(found, source)
    if why is not None:
        raise InputError(f"{what}: {path}: {why}")
    return found


def _implicit(source: Path | None, environ: Mapping[str, str], notes: list[str]) -> tuple[_Found, str] | None:
    """The active VIRTUAL_ENV, else the repository's .venv or venv; a candidate that is not one is a note."""
    candidates: list[tuple[Path, str]] = []
    active = environ.get("VIRTUAL_ENV", "").strip()
    if active:
        candidates.append((Path(active) / "bin" / "python", f"the active VIRTUAL_ENV {active}"))
    if source is not None:
        candidates += [(source / name / "bin" / "python", f"the repository's {name}") for name in (".venv", "venv")]
    for path, origin in candidates:
        if not os.path.lexists(path) and origin.startswith("the repository"):
            continue
        try:
            found = _inspect(path)
        except _NotPython as exc:
            notes.append(f"{origin} was not used: {exc}")
            continue
        why = _holding(found, os.path.realpath(source) if source is not None else None)
        if why is None:
            return found, origin
        notes.append(f"{origin} was not used: {why}")
    return None


def project_python(source: Path | None, *, explicit: Path | None = None, configured: str = "",
                   environ: Mapping[str, str] | None = None, isolation: str = "auto") -> PythonEnv:
    """The project's interpreter for a review of `source` (the repository's directory; None for a case).

    `explicit`: `--python`; `configured`: `[sandbox] python` of the user's config. A bad one of those is an
    InputError (exit 2); an active VIRTUAL_ENV or a `.venv` that holds no interpreter is skipped with a note.
    """
    notes: list[str] = []
    held = os.path.realpath(source) if source is not None else None
    if explicit is not None:
        found, origin = _explicit(explicit, "--python", held), f"named by --python {explicit}"
    elif configured:
        found, origin = _explicit(configured, "[sandbox] python", held), "named by [sandbox] python of --config"
    else:
        hit = _implicit(source, os.environ if environ is None else environ, notes)
        if hit is None:
            return PythonEnv(sys.executable, "showcause's own", (), tuple(notes), "")
        found, origin = hit
    if found.venv and found.venv == os.path.realpath(sys.prefix):
        return PythonEnv(sys.executable, "showcause's own", (), tuple(notes), "")
    real_source = os.path.realpath(source) if source is not None else None
    aliases = tuple(_aliases(found, os.path.abspath(source), real_source)) if source is not None and real_source \
        else ()
    python, mounts, more = _layout(found, real_source, aliases)
    notes += more
    if isolation == "none" and real_source:
        notes.append(f"isolation none: paths of the environment into the repository (editable installs) lead to "
                     f"the working tree at {real_source}, not to the reviewed copy")
    return PythonEnv(python, origin, tuple(mounts), tuple(notes), _packages(found))
