"""Repo cases with their ground truth (`case.json`), for the benchmark and for label verification.

Only this module reads `truth`; snapshots and tools never see it (`snapshot/case.py` drops it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["Case", "CaseDoc", "case_set_hash", "find_cases", "load_case"]

Kind = Literal["test", "typecheck", "reference", "untestable", "none"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Package(_Strict):
    """One package of a monorepo case: its releases, unpacked at `dir` of the tree."""

    package: str = Field(min_length=1)
    dir: str = Field(min_length=1)
    base: str = Field(min_length=1)
    head: str = Field(min_length=1)
    head_paths: list[str] = Field(default_factory=list)


class Source(_Strict):
    """Where the case comes from. A `real_release` case holds no trees: base is the published release
    `base` of `package` on `registry`, head is base with `head_paths` from release `head` (`snapshot.release`);
    or, for a monorepo, the same per package of `packages`, each at its own `dir`."""

    kind: Literal["synthetic", "real_code", "real_commit", "real_release"]
    url: str = ""
    note: str = ""
    registry: Literal["pypi", "npm"] | None = None
    package: str = ""
    base: str = ""
    head: str = ""
    head_paths: list[str] = Field(default_factory=list)
    packages: list[Package] = Field(default_factory=list)

    @model_validator(mode="after")
    def _release(self) -> Source:
        single = bool(self.package and self.base and self.head)
        if self.packages and (single or self.head_paths):
            raise ValueError("a real_release source names either package/base/head or packages, not both")
        if (self.kind == "real_release") != bool(self.registry and (single or self.packages)):
            raise ValueError("a real_release source names registry, and package, base and head or packages "
                             "(and only it does)")
        return self


class Env(_Strict):
    pip: list[str] = Field(default_factory=list)
    npm: list[str] = Field(default_factory=list)
    pythonpath: list[str] = Field(default_factory=list)


class TaskInput(_Strict):
    task: str = Field(min_length=1)
    plan: str = Field(min_length=1)
    constraints: list[str] = Field(default_factory=list)
    context: str = ""
    decision_type: Literal["architecture", "refactor", "debugging", "database", "api", "dependency", "performance",
                           "security", "implementation", "other"]
    risk_level: Literal["low", "medium", "high", "critical"]


class Checks(_Strict):
    tests: list[str] = Field(default_factory=list)
    typecheck: Literal["pyright", "tsc", "none"]
    env: Env | None = None    # what the tests need installed, prepared once outside the sandbox


class Truth(_Strict):
    status: Literal["defect", "correct"]
    kind: Kind
    acceptable: list[Literal["KEEP", "WARNING", "MODIFY", "REPLACE"]] = Field(min_length=1)
    issue: str = ""
    evidence: list[str] = Field(default_factory=list)
    tempting: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> Truth:
        if self.status == "correct" and (self.kind != "none" or self.acceptable != ["KEEP"]):
            raise ValueError("correct cases use kind 'none' and accept only KEEP")
        if self.status == "defect" and self.kind == "none":
            raise ValueError("a defect needs a kind other than 'none'")
        if self.kind in ("test", "typecheck", "reference") and not self.evidence:
            raise ValueError(f"a {self.kind} defect lists its evidence")
        return self


class CaseDoc(_Strict):
    id: str
    title: str = Field(min_length=1)
    language: Literal["python", "javascript"]
    source: Source
    input: TaskInput
    checks: Checks
    truth: Truth


@dataclass(frozen=True)
class Case:
    path: Path
    doc: CaseDoc
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.doc.id


def load_case(path: Path) -> Case:
    path = Path(path).resolve()
    try:
        raw = jsonsafe.load_file(path / "case.json", max_bytes=jsonsafe.MAX_CASE_BYTES)
    except FileNotFoundError:
        raise InputError(f"{path}: no case.json") from None
    except (OSError, ValueError) as exc:   # unreadable, not JSON, or beyond the caps of jsonsafe
        raise InputError(f"{path}/case.json: {exc}") from exc
    try:
        doc = CaseDoc.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{path.name}/case.json: {where}: {first['msg']}") from exc
    if doc.id != path.name:
        raise InputError(f"{path.name}/case.json: id {doc.id!r} does not match the folder name")
    for part in () if doc.source.kind == "real_release" else ("base", "patch.diff"):
        if not (path / part).exists():
            raise InputError(f"{path.name}: missing {part}")
    return Case(path, doc)


def find_cases(root: Path) -> list[Path]:
    """Case folders under `root` (a folder holding case.json is a case; `root` itself may be one)."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise InputError(f"{root}: no such directory")
    if (root / "case.json").is_file():
        return [root]
    return sorted(p for p in root.iterdir() if (p / "case.json").is_file())


def case_set_hash(paths: list[Path]) -> str:
    """A hash over every file of every case: a changed case set cannot be resumed into."""
    h = hashlib.sha256()
    for case in sorted(paths):
        for f in sorted(p for p in case.rglob("*") if p.is_file() and not p.is_symlink()):
            h.update(f.relative_to(case.parent).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]
