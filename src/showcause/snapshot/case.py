"""The input half of a repo case (`case.json`). Ground truth (`truth`) is never loaded here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["CaseEnv", "CaseInput", "Release", "load_case_input"]


@dataclass(frozen=True)
class Release:
    """`source` of a real-world case: base is one published release, head is base with `head_paths` taken
    from another (all of it when empty)."""

    registry: str
    package: str
    base: str
    head: str
    head_paths: tuple[str, ...] = ()


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


def _release(source: object, path: Path) -> Release | None:
    if not isinstance(source, dict) or source.get("kind") != "real_release":
        return None
    fields = {k: source.get(k) for k in ("registry", "package", "base", "head")}
    missing = [k for k, v in fields.items() if not isinstance(v, str) or not v]
    if missing:
        raise InputError(f"{path}: a real_release source needs {', '.join(missing)}")
    return Release(**{k: str(v) for k, v in fields.items()},
                   head_paths=_strings(source.get("head_paths"), "source.head_paths", path))


def _env(raw: object, path: Path) -> CaseEnv:
    if raw is None:
        return CaseEnv()
    if not isinstance(raw, dict) or set(raw) - {"pip", "npm", "pythonpath"}:
        raise InputError(f"{path}: checks.env takes pip, npm and pythonpath lists only")
    return CaseEnv(*(_strings(raw.get(k), f"checks.env.{k}", path) for k in ("pip", "npm", "pythonpath")))


def load_case_input(case_dir: Path) -> CaseInput:
    path = case_dir / "case.json"
    try:
        doc = jsonsafe.load_file(path, max_bytes=jsonsafe.MAX_CASE_BYTES)
    except FileNotFoundError:
        raise InputError(f"{case_dir}: not a repo case (no case.json)") from None
    except (OSError, ValueError) as exc:   # unreadable, not JSON, or beyond the caps of jsonsafe
        raise InputError(f"{path}: unreadable case.json: {exc}") from exc
    if not isinstance(doc, dict):
        raise InputError(f"{path}: case.json must hold an object")
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
