"""`find_symbol`: tree-sitter definitions and references of a name (comments and strings excluded)."""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from showcause.core.artifacts import Shown
from showcause.tools.base import Args, ToolContext, ToolOutput
from showcause.tools.search import clip

__all__ = ["FindSymbolTool"]

_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]{0,199}\Z")


class FindSymbolArgs(Args):
    name: str = Field(description="An identifier, e.g. load_config or UserService.")
    kind: Literal["definition", "reference", "any"] = Field(default="any",
                                                            description="definition, reference or any.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        v = v.strip()
        # `Class.method` is accepted and looked up by its last part.
        last = v.rsplit(".", 1)[-1]
        if not _NAME.match(last):
            raise ValueError("must be an identifier (letters, digits, _ or $)")
        return last


class FindSymbolTool:
    name: ClassVar[str] = "find_symbol"
    description: ClassVar[str] = (
        "Find where a name is defined and referenced in Python, JavaScript and TypeScript code (tree-sitter; "
        "occurrences in comments and strings are not references).")
    Arguments: ClassVar[type[Args]] = FindSymbolArgs
    read_only: ClassVar[bool] = True

    def run(self, ctx: ToolContext, args: FindSymbolArgs) -> ToolOutput:  # type: ignore[override]
        from showcause.symbols import SymbolIndex  # tree-sitter loads only when a symbol is looked up

        other = ctx.snapshot.tree("base" if ctx.side == "head" else "head")
        with ctx.analysis.measure():
            index = SymbolIndex.for_tree(ctx.root, sibling=other, changed=ctx.snapshot.diff.files, budget=ctx.analysis,
                                         worker_min_files=ctx.policy.symbols.symbol_worker_min_files)
            hits = index.lookup(args.name, args.kind, ctx.analysis)
        cap = ctx.policy.output.max_symbol_hits
        n_def = sum(1 for h in hits if h.kind == "definition")
        lines = [f"find_symbol {args.name} ({args.kind}): {n_def} definition{'s' * (n_def != 1)}, "
                 f"{len(hits) - n_def} reference{'s' * (len(hits) - n_def != 1)}"]
        # Definitions first, so a cap never hides where the name is defined.
        ordered = sorted(hits, key=lambda h: (h.kind != "definition", h.file, h.line))
        shown: list[Shown] = []
        for h in ordered[:cap]:
            line = f"{h.file}:{h.line}: {h.kind} {h.detail}: {clip(h.text, ctx.policy.paths.max_line_chars)}"
            lines.append(line)
            shown.append(Shown(h.file, h.line, line))
        if len(ordered) > cap:
            lines.append(f"[showing {cap} of {len(ordered)}; use kind= or search with path= to narrow]")
        return ToolOutput(text="\n".join(lines), shown=shown, advice="use kind= or search with path= to narrow")
