"""The input half of a repo case (`case.json`). Ground truth (`truth`) is never loaded here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["CaseEnv", "CaseInput", "Release", "ReleasePart", "load_case_input"]


@dataclass(frozen=True)
class ReleasePart:
    """One package of a real-world case: at `dir` of the tree ("" = the root), base is its release `base`,
    head is base with `head_paths` (relative to `dir`) taken from release `head` (all of it when empty)."""

    package: str
    base: str
    head: str
    head_paths: tuple[str, ...] = ()
    dir: str = ""


@dataclass(frozen=True)
class Release:
    """`source` of a real-world case: one package's releases, or (`packages`) several packages of one
    monorepo, each at its own directory, released from the same repository."""

    registry: str
    parts: tuple[ReleasePart, ...]


@dataclass(frozen=True)
class CaseEnv:
    """`checks.env`: what the case's tests need installed (exact pins), prepared once outside the sandbox."""

    pip: tuple[str, ...] = ()
    npm: tuple[str, ...] = ()
    pythonpath: tuple[str, ...] = ()     # directories of the tree on the tests' import path (a src layout)

    def __bool__(self) -> bool:
        return bool(self.pip or self.npm or self.pythonpath)


@dataclass(frozen=True)
class CaseInput:
    id: str
    title: str = ""
    language: str = ""
    task: dict[str, Any] = field(default_factory=dict)
    tests: tuple[str, ...] = ()
    typecheck: str = "auto"
    release: Release | None = None
    env: CaseEnv = field(default_factory=CaseEnv)


def _strings(value: object, where: str, path: Path) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{path}: {where} must be a list of strings")
    return tuple(value)


def _part(raw: dict[str, Any], where: str, path: Path) -> ReleasePart:
    fields = {k: raw.get(k) for k in ("package", "base", "head")}
    missing = [k for k, v in fields.items() if not isinstance(v, str) or not v]
    if missing:
        raise InputError(f"{path}: {where} needs {', '.join(missing)}")
    directory = raw.get("dir", "")
    if not isinstance(directory, str):
        raise InputError(f"{path}: {where}.dir must be a string")
    return ReleasePart(**{k: str(v) for k, v in fields.items()}, dir=directory.strip("/"),
                       head_paths=_strings(raw.get("head_paths"), f"{where}.head_paths", path))


def _release(source: object, path: Path) -> Release | None:
    if not isinstance(source, dict) or source.get("kind") != "real_release":
        return None
    registry = source.get("registry")
    if not isinstance(registry, str) or not registry:
        raise InputError(f"{path}: a real_release source needs registry")
    packages = source.get("packages")
    if packages is None:
        return Release(registry, (_part(source, "a real_release source", path),))
    if not isinstance(packages, list) or not packages or not all(isinstance(p, dict) for p in packages):
        raise InputError(f"{path}: source.packages must be a non-empty list of objects")
    parts = tuple(_part(p, f"source.packages[{i}]", path) for i, p in enumerate(packages))
    dirs = [p.dir for p in parts]
    nested = any(a != b and b.startswith(a + "/") for a in dirs for b in dirs)
    if len(parts) > 1 and (not all(dirs) or len(set(dirs)) != len(dirs) or nested):
        raise InputError(f"{path}: each of source.packages needs its own dir, none inside another")
    return Release(registry, parts)


def _env(raw: object, path: Path) -> CaseEnv:
    if raw is None:
        return CaseEnv()
    if not isinstance(raw, dict) or set(raw) - {"pip", "npm", "pythonpath"}:
        raise InputError(f"{path}: checks.env takes pip, npm and pythonpath lists only")
    return CaseEnv(*(_strings(raw.get(k), f"checks.env.{k}", path) for k in ("pip", "npm", "pythonpath")))


def load_case_input(case_dir: Path) -> CaseInput:
    path = case_dir / "case.json"
    doc = jsonsafe.load_object(path, max_bytes=jsonsafe.MAX_CASE_BYTES,
                               missing=f"{case_dir}: not a repo case (no case.json)",
                               unreadable=f"{path}: unreadable case.json: ",
                               not_object=f"{path}: case.json must hold an object")
    checks = doc.get("checks") or {}
    tests = checks.get("tests") or []
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise InputError(f"{path}: checks.tests must be a list of paths")
    typecheck = checks.get("typecheck") or "auto"
    if typecheck not in ("pyright", "tsc", "none", "auto"):
        raise InputError(f"{path}: checks.typecheck must be pyright, tsc or none")
    task = doc.get("input") or {}
    # Only the reviewer-facing input is kept; `truth` is dropped here and never travels further.
    return CaseInput(id=str(doc.get("id") or case_dir.name), title=str(doc.get("title") or ""),
                     language=str(doc.get("language") or ""), task=task if isinstance(task, dict) else {},
                     tests=tuple(tests), typecheck=typecheck, release=_release(doc.get("source"), path),
                     env=_env(checks.get("env"), path))
