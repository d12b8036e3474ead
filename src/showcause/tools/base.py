"""The tool protocol, the context tools run in, and what a tool returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from showcause.core.analysis_budget import AnalysisBudget
from showcause.core.artifacts import Artifact, Shown
from showcause.core.host import spare_cores
from showcause.policy import Policy
from showcause.sandbox.lifecycle import check_stopping
from showcause.sandbox.projectenv import ProjectEnv
from showcause.snapshot import Snapshot

__all__ = ["Args", "Tool", "ToolContext", "ToolOutput", "kept_text"]


def kept_text(text: str, limit: int) -> str:
    """What the output cap keeps of `text`: whole lines only, up to `limit` characters (all of it when it fits).
    The ledger cuts by it; a tool that must know which of its lines will be shown asks it the same."""
    if len(text) <= limit:
        return text
    kept = text[:limit]
    return kept[: kept.rfind("\n") + 1] if "\n" in kept else kept


class Args(BaseModel):
    """Base for tool argument models: unknown keys are refused, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass
class ToolContext:
    snapshot: Snapshot
    policy: Policy
    side: str = "head"                         # the tree the read tools see
    tests: tuple[str, ...] = ()                # run_test allowlist override (a case's checks.tests)
    typecheck: str = "auto"                    # pyright | tsc | none | auto
    # Latency over throughput: check the base tree beside head instead of only when head needs it. Where
    # the cores allow (`spare_cores`); benchmark runs (many reviews sharing the cores) turn it off.
    eager_base: bool = field(default_factory=spare_cores)
    cache: dict[str, Any] = field(default_factory=dict)
    # The project's interpreter and installed packages, the same for both trees (`sandbox.projectenv`).
    env: ProjectEnv = field(default_factory=ProjectEnv)

    @property
    def root(self) -> Path:
        return self.snapshot.tree(self.side)

    @property
    def analysis(self) -> AnalysisBudget:
        """The host-side analysis budget of this review, shared by every view of it (see `cache`)."""
        fresh = AnalysisBudget(self.policy.analysis.analysis_budget_s, self.policy.analysis.max_analysis_bytes,
                               stop=check_stopping)
        found = self.cache.setdefault("analysis", fresh)
        assert isinstance(found, AnalysisBudget)
        return found


@dataclass
class ToolOutput:
    text: str
    ok: bool = True
    shown: list[Shown] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    isolation: str | None = None
    results: list[dict[str, Any]] | None = None
    advice: str = "narrow the query"           # what to do when the output is cut


@runtime_checkable
class Tool(Protocol):
    name: ClassVar[str]
    description: ClassVar[str]
    Arguments: ClassVar[type[Args]]
    # True when the tool only reads the tree; False when it runs repository code (tests, type checkers).
    read_only: ClassVar[bool]

    def run(self, ctx: ToolContext, args: Any) -> ToolOutput: ...
