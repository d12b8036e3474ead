"""`typecheck`: pyright or tsc on head and base; each head error marked new or pre-existing."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from showcause.analysis.importgraph import dependents
from showcause.core.artifacts import Artifact, Shown
from showcause.core.errors import ProbeUnrunnable
from showcause.core.threads import ContextPool
from showcause.snapshot.diff import Diff
from showcause.tools.base import Args, ToolContext, ToolOutput
from showcause.tools.diagnostics import CheckRun, match_new, run_base_checker, run_checker
from showcause.tools.pyright_config import PyrightFiles, configured_files, settings_changed
from showcause.tools.typesetup import NO_TYPE_SETUP, checkers_for_project

__all__ = ["TypecheckTool"]


class TypecheckArgs(Args):
    pass


def _pyright_scope(ctx: ToolContext, configured: PyrightFiles | None, edited: bool) -> tuple[str, ...] | None:
    """The Python files whose diagnostics the change can alter and that the project type-checks (its pyright
    include/exclude, read on base), or None to check the project as configured."""
    from showcause.symbols import SymbolIndex

    snap = ctx.snapshot
    index = SymbolIndex.for_tree(snap.head, sibling=snap.base, changed=snap.diff.files,
                                 worker_min_files=ctx.policy.symbols.symbol_worker_min_files)
    python = [f for f in index.files if f.endswith((".py", ".pyi")) and (configured is None or configured.covers(f))]
    reached = dependents(index, set(snap.diff.files))
    if reached is None or not snap.diff.files:  # the graph cannot tell, or no change (`--repo` alone)
        reached = set(python)
    scope = tuple(sorted(f for f in python if f in reached))
    # The whole project as configured: pyright's own run is the same, unless the change edits pyright's
    # settings (`edited`; then the files are named, so that a change cannot narrow what it is checked under).
    if scope and len(scope) == len(python) and not edited:
        return None
    return scope


def _base_scope(base: Path, checker: str, head: CheckRun, scope: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """For pyright, only the base files where head has errors: matching needs nothing else, and checking
    dominates pyright's time (tsc checks a whole project, so its scope stays)."""
    if checker != "pyright":
        return scope
    return tuple(sorted({d.file for d in head.diagnostics if (base / d.file).is_file()}))


class TypecheckTool:
    name: ClassVar[str] = "typecheck"
    description: ClassVar[str] = (
        "Type-check the changed tree (pyright for Python, tsc for JavaScript/TypeScript) and the original "
        "tree; every error on head is marked NEW (introduced by the change) or PRE-EXISTING.")
    Arguments: ClassVar[type[Args]] = TypecheckArgs
    read_only: ClassVar[bool] = False   # it runs the repository's code (in the sandbox)

    def run(self, ctx: ToolContext, args: TypecheckArgs) -> ToolOutput:  # type: ignore[override]
        snap = ctx.snapshot
        checkers, unset = checkers_for_project(snap.head, ctx.typecheck,
                                               without_setup=not ctx.policy.process.typecheck_needs_setup,
                                               base=snap.base)
        lines: list[str] = [f"typecheck: {NO_TYPE_SETUP}"] if unset else []
        if not checkers:
            return ToolOutput(text="\n".join(lines) or "typecheck: no type checker applies to this repository")
        isolation = None
        edited = settings_changed(snap.base, snap.head) if "pyright" in checkers else None
        if edited:
            lines.append(f"typecheck: the change edits pyright's settings ({edited}); head is checked under the "
                         "edited settings, and files they exclude are not checked")
        configured = configured_files(snap.base) if "pyright" in checkers else None
        as_configured = f" under the include/exclude of {configured.source} on base" if configured else ""
        scope = _pyright_scope(ctx, configured, edited is not None) if "pyright" in checkers else None
        if scope == ():
            checkers.remove("pyright")
            lines.append(f"typecheck: pyright not run: the change reaches no Python file the project type-checks"
                         f"{as_configured}")
            if not checkers:
                return ToolOutput(text="\n".join(lines))
        files = {c: (scope if c == "pyright" else None) for c in checkers}
        # With no error on head nothing can be new: the base check is needed only when head has errors.
        # Eagerly it runs beside head (its result unused when head is clean); otherwise after it, if needed.
        with ContextPool(max_workers=2 * len(checkers)) as pool:
            early = {c: pool.submit(run_base_checker, snap.base, c, ctx.policy, files[c], ctx.env) for c in checkers} \
                if ctx.eager_base else {}
            heads = list(pool.map(lambda c: run_checker(snap.head, c, ctx.policy, files[c], ctx.env), checkers))
            need_base = [c for c, h in zip(checkers, heads, strict=True) if h.diagnostics and not h.problem]
            bases = {c: (early[c].result() if c in early else
                         run_base_checker(snap.base, c, ctx.policy, _base_scope(snap.base, c, h, files[c]), ctx.env))
                     for c, h in zip(checkers, heads, strict=True) if c in need_base}
        if scope:
            lines.append(f"typecheck: pyright checked the {len(scope)} Python files the change can affect "
                         f"(the changed files and everything that imports them){as_configured}")
        out = _Report(lines)
        for checker, head in zip(checkers, heads, strict=True):
            isolation = head.proc.isolation if head.proc else isolation
            where = " in those files" if checker == "pyright" and checker not in early else ""
            out.add(checker, head, bases.get(checker), snap.diff, where, f"; isolation {isolation}")
        if out.problems:
            # A checker that could not run is no evidence either way: never a pass (PROBE_UNRUNNABLE).
            raise ProbeUnrunnable(f"typecheck {'; '.join(out.problems)} — the type check is part of the "
                                  "evidence: fix what the checker reports (a checker not installed: make setup)")
        ok, shown, artifacts = out.ok, out.shown, out.artifacts
        return ToolOutput(text="\n".join(lines), ok=ok, shown=shown, artifacts=artifacts, isolation=isolation,
                          advice="new errors are listed first")


class _Report:
    """The lines, shown locations and artifacts of each checker's head-vs-base comparison."""

    def __init__(self, lines: list[str]) -> None:
        self.lines, self.shown, self.artifacts, self.ok = lines, list[Shown](), list[Artifact](), True
        self.problems: list[str] = []    # a checker that did not run on head, or on base when head has errors

    def add(self, checker: str, head: CheckRun, base: CheckRun | None, diff: Diff, where: str, tail: str) -> None:
        checker = f"{checker} ({head.tool})" if head.tool else checker   # which one ran, and its version
        if head.problem:
            self.ok = False
            self.lines.append(f"typecheck {checker}: {head.problem}")
            self.problems.append(f"{checker}: {head.problem}")
            return
        if base is None:
            self.lines.append(f"typecheck {checker}: 0 errors on head{tail}")
            return
        if base.problem:
            # Without a base result nothing can be called new: report, never mark NEW.
            self.lines.append(f"typecheck {checker}: {len(head.diagnostics)} errors on head; base check failed "
                              f"({base.problem}), so none can be marked new")
            self.lines += [f"UNKNOWN {d.render()}" for d in head.diagnostics]
            self.problems.append(f"{checker} on the original tree: {base.problem}")
            return
        marked = match_new(list(head.diagnostics), list(base.diagnostics), diff)
        n_new = sum(1 for _d, new in marked if new)
        self.lines.append(f"typecheck {checker}: {len(marked)} errors on head ({n_new} new, "
                          f"{len(marked) - n_new} pre-existing); {len(base.diagnostics)} on base{where}{tail}")
        for d, new in sorted(marked, key=lambda m: (not m[1], m[0].file, m[0].line)):
            line = f"{'NEW' if new else 'PRE-EXISTING'} {d.render()}"
            self.lines.append(line)
            self.shown.append(Shown(d.file, d.line, line))
            if new:
                self.artifacts.append(Artifact("new_type_error", d.file, d.line, f"{d.code}: {d.message}", line,
                                               subject=d.code))
