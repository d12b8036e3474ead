"""The corpus: real projects from the package registries, each made a git repository with its environment.

A project is its released source (a PyPI sdist or an npm tarball that ships its tests, unpacked and
digest-checked by showcause's release cache), committed as the base of a repository under the oracle's work
folder; every change is a branch of it. Its Python packages are a virtualenv of wheels only, whose `.pth`
file puts the project's source directories first on `sys.path` (as an editable install, or PYTHONPATH); its npm
packages are installed with `--ignore-scripts` and linked into the repository (untracked). Nothing of a
project runs on the host: building all this reads and copies files only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["BASE", "Project", "add_files", "load_projects", "materialize", "mirror", "source_tree"]

BASE = "oracle-base"
_GIT = ["git", "-c", "user.name=oracle", "-c", "user.email=oracle@localhost", "-c", "commit.gpgsign=false"]


@dataclass(frozen=True)
class Project:
    name: str
    registry: str
    package: str
    version: str
    language: str
    runner: str
    command: tuple[str, ...]
    cwd: str = ""
    pip: tuple[str, ...] = ()
    npm: tuple[str, ...] = ()
    pythonpath: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    suite_seconds: float = 0.0
    previous: str = ""     # an earlier release (or commit): the base of a real upstream change (releases.py)
    fixes: tuple[str, ...] = ()   # commits (registry "git") whose source change is reverted, their tests kept
    failing: tuple[str, ...] = ()
    notes: str = ""
    extra: dict[str, object] = field(default_factory=dict)


def load_projects(path: Path) -> list[Project]:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    out: list[Project] = []
    fields = set(Project.__dataclass_fields__)
    for raw in doc.get("project", []):
        known = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items() if k in fields}
        out.append(Project(**known, extra={k: v for k, v in raw.items() if k not in fields}))
    names = [p.name for p in out]
    if len(names) != len(set(names)):
        raise SystemExit(f"{path}: project names repeat")
    return out


def git(repo: Path, *args: str, capture: bool = False) -> str:
    done = subprocess.run([*_GIT, "-C", str(repo), *args], check=True, text=True,
                          stdout=subprocess.PIPE if capture else subprocess.DEVNULL, stderr=subprocess.PIPE)
    return done.stdout if capture else ""


def _python_env(project: Project, work: Path, repo: Path) -> Path | None:
    """A virtualenv of the project's pins whose .pth names the repository's source directories."""
    if project.language != "python":
        return None
    from showcause.sandbox.envcache import python_env_dir

    shared = python_env_dir(tuple(project.pip), fetch=True)
    venv = work / "envs" / project.name
    if not (venv / "pyvenv.cfg").is_file():
        tmp = venv.with_name(venv.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(shared, tmp, symlinks=True)
        # The copy's scripts name the shared folder; only `python -m` is used, which does not read them.
        os.replace(tmp, venv)
    site = next(venv.glob("lib/python3*/site-packages"))
    dirs = [str(repo / d) for d in project.pythonpath] or [str(repo)]
    # First on sys.path, as PYTHONPATH would put them: a project that pytest itself imports (packaging,
    # pluggy) must be tested from its source, not from the copy pytest brought.
    line = f"import sys; sys.path[:0] = {dirs!r}\n"
    (site / "_oracle_source.pth").write_text(line, encoding="utf-8")
    return venv


def _node_modules(project: Project, repo: Path) -> None:
    if not project.npm:
        return
    if not (repo / "node_modules").exists():
        from showcause.sandbox.envcache import node_env_dir

        shared = node_env_dir(tuple(project.npm), fetch=True) / "node_modules"
        subprocess.run(["cp", "-al", str(shared), str(repo / "node_modules")], check=True)
    _workspace_links(repo)


def _workspace_links(repo: Path) -> None:
    """Each package of an npm workspaces monorepo (root package.json `workspaces`) linked into node_modules by its
    name, relative, as `npm install` links it. The pins install registry packages only, never the repository's
    own, so without these links a test that imports a sibling package by name finds nothing (or a registry copy
    of it); relative, a link leads into whichever copy of the tree the sandbox binds node_modules beside."""
    import glob
    import json

    doc = json.loads((repo / "package.json").read_text(encoding="utf-8")) if (repo / "package.json").is_file() else {}
    spaces = doc.get("workspaces") if isinstance(doc, dict) else None
    patterns = spaces.get("packages", []) if isinstance(spaces, dict) else spaces or []
    for pattern in patterns:
        for rel in sorted(glob.glob(str(pattern).rstrip("/"), root_dir=repo)):
            manifest = repo / rel / "package.json"
            name = json.loads(manifest.read_text(encoding="utf-8")).get("name") if manifest.is_file() else None
            if not isinstance(name, str) or not name:
                continue
            link = repo / "node_modules" / name
            target = os.path.relpath(repo / rel, link.parent)
            if link.is_symlink() and os.readlink(link) == target:
                continue
            if link.is_symlink() or link.is_file():
                link.unlink()
            elif link.is_dir():    # a registry copy of the same name (hard links of the shared folder): npm's link wins
                shutil.rmtree(link)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(target)


def mirror(project: Project, work: Path) -> Path:
    """The project's git history (registry "git", package "owner/name"): a local mirror named by
    ORACLE_GIT_MIRRORS (its `owner+name/repo`), else a clone from GitHub kept in the work folder."""
    owner_name = project.package.replace("/", "+")
    local = Path(os.environ.get("ORACLE_GIT_MIRRORS", "/nonexistent")) / owner_name / "repo"
    if local.is_dir():
        return local
    path = work / "mirrors" / owner_name
    if not path.is_dir():
        tmp = path.with_name(path.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "--mirror", f"https://github.com/{project.package}.git", str(tmp)],
                       check=True)
        os.replace(tmp, path)
    return path


def source_tree(project: Project, version: str, work: Path) -> Path:
    """The project's source at `version`: a release from its registry, or a commit of its git history."""
    if project.registry != "git":
        from showcause.snapshot.release import release_tree

        return release_tree(project.registry, project.package, version, fetch=True)
    out = work / "trees" / f"{project.name}-{version[:16]}"
    if not out.is_dir():
        tmp = out.with_name(out.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(mirror(project, work)), "archive", version], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        os.replace(tmp, out)
    return out


def add_files(project: Project, tree: Path) -> None:
    """Files the released archive leaves out that the project's repository has (its test config, the test
    script of its package.json), from the corpus's `files` table: path -> text, or `package.json:scripts.test`."""
    files = project.extra.get("files") or {}
    assert isinstance(files, dict)
    for rel, text in files.items():
        if rel == "package.json:scripts.test":
            import json

            doc = json.loads((tree / "package.json").read_text(encoding="utf-8"))
            doc.setdefault("scripts", {})["test"] = str(text)
            (tree / "package.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        else:
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_text(str(text), encoding="utf-8")


def materialize(project: Project, work: Path) -> tuple[Path, Path | None]:
    """The project's repository (its release committed and tagged `oracle-base`) and its virtualenv."""
    repo = work / "repos" / project.name
    if not (repo / ".git").is_dir():
        tree = source_tree(project, project.version, work)
        tmp = repo.with_name(repo.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(tree, tmp, symlinks=True)
        add_files(project, tmp)
        subprocess.run([*_GIT, "init", "-q", str(tmp)], check=True)
        (tmp / ".git" / "info" / "exclude").write_text("node_modules/\n.venv/\n__pycache__/\n", encoding="utf-8")
        git(tmp, "add", "-A", "-f", ".")
        git(tmp, "commit", "-q", "--no-verify", "-m", f"{project.package} {project.version}")
        git(tmp, "tag", BASE)
        os.replace(tmp, repo)
    _node_modules(project, repo)
    from .releases import commit_previous

    commit_previous(project, repo, work)
    return repo, _python_env(project, work, repo)
