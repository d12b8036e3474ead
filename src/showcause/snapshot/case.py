"""The input half of a repo case (`case.json`). Ground truth (`truth`) is never loaded here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["CaseInput", "load_case_input"]


@dataclass(frozen=True)
class CaseInput:
    id: str
    title: str = ""
    language: str = ""
    task: dict[str, Any] = field(default_factory=dict)
    tests: tuple[str, ...] = ()
    typecheck: str = "auto"


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
                     tests=tuple(tests), typecheck=typecheck)
