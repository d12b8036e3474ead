"""Real jest, vitest, mocha and typescript from the npm registry, installed once per lockfile, and small real
JavaScript projects that have them installed as a user's checkout has them.

The packages are installed with `npm ci` from `tests/support/js/package-lock.json` into
`.cache/js-fixtures/<hash of the lockfile>/node_modules` (about 25 s and 90 MB the first time; every later
run, `make test` included, reuses it). A project gets its own `node_modules` as hard links of that one
(a copy where hard links fail), plus the links npm workspaces make for its packages. `tests/support/js-vite6/`
is a second lockfile installed the same way: vitest 3 on vite 6, which bundles a TypeScript config into
`node_modules/.vite-temp`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from builders import git_repo

__all__ = ["REPO", "SHOWCAUSE", "install_modules", "js_modules", "js_repo", "showcause"]

REPO = Path(__file__).resolve().parents[2]
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
_LOCK = Path(__file__).resolve().parent / "js"


def js_modules(lock: str = "js") -> Path:
    """The installed node_modules of a fixture lockfile, `tests/support/<lock>/` (installed here on first use;
    "js-vite6": vitest 3 on vite 6)."""
    folder = _LOCK.with_name(lock)
    digest = hashlib.sha256(b"".join((folder / n).read_bytes() for n in ("package.json", "package-lock.json")))
    home = REPO / ".cache" / "js-fixtures" / digest.hexdigest()[:16]
    if (home / ".installed").is_file():
        return home / "node_modules"
    npm = shutil.which("npm")
    assert npm, "npm is needed to install the JavaScript test runners the tests use"
    work = home.with_name(f"{home.name}.tmp{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(folder / name, work / name)
    started = time.monotonic()
    proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=work,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"npm ci failed: {proc.stderr[-2000:]}"
    (work / ".installed").write_text(f"npm ci took {time.monotonic() - started:.0f} s\n", encoding="utf-8")
    try:
        work.rename(home)
    except OSError:   # another run installed it meanwhile
        shutil.rmtree(work, ignore_errors=True)
    return home / "node_modules"


def install_modules(root: Path, modules: Path, links: dict[str, str] | None = None) -> None:
    """`root/node_modules` as installed: the fixture's packages (hard links), and `links` (npm workspaces'
    `node_modules/@scope/pkg -> ../../packages/pkg`)."""
    target = root / "node_modules"
    try:
        shutil.copytree(modules, target, symlinks=True, copy_function=os.link)
    except OSError:
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(modules, target, symlinks=True)
    for name, dest in (links or {}).items():
        link = target / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(dest)


def js_repo(root: Path, base: dict[str, str], head: dict[str, str | None], modules: Path | None,
            links: dict[str, str] | None = None) -> Path:
    """A git repository (commits base, head) with node_modules installed and ignored, as after `npm ci`."""
    git_repo(root, [{".gitignore": "node_modules/\n", **base}, head])
    if modules is not None:
        install_modules(root, modules, links)
    return root


def showcause(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=600, env=env)
