"""`list_files`: the files under a directory, capped, optionally filtered by a glob."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from showcause.core.artifacts import Shown
from showcause.core.rg import rg_files
from showcause.sandbox.paths import confine
from showcause.tools.base import Args, ToolContext, ToolOutput

__all__ = ["ListFilesTool"]


class ListFilesArgs(Args):
    path: str | None = Field(default=None, description="Directory (or file) relative to the root; default root.")
    glob: str | None = Field(default=None, description="Only files matching this glob, e.g. '*.py'.")


class ListFilesTool:
    name: ClassVar[str] = "list_files"
    description: ClassVar[str] = "List files under a directory of the repository (capped, sorted)."
    Arguments: ClassVar[type[Args]] = ListFilesArgs
    read_only: ClassVar[bool] = True

    def run(self, ctx: ToolContext, args: ListFilesArgs) -> ToolOutput:  # type: ignore[override]
        _abs, rel = confine(ctx.root, args.path or "")
        files, total = rg_files(ctx.root, rel, glob=args.glob, limit=ctx.policy.output.max_list_files,
                                timeout=ctx.policy.search.timeout_s)
        where = rel or "."
        lines = [f"list_files {where}{f' (glob {args.glob})' if args.glob else ''}: {total} file{'s' * (total != 1)}"]
        lines += files
        if total > len(files):
            lines.append(f"[showing the first {len(files)} of {total}; narrow with path= or glob=]")
        return ToolOutput(text="\n".join(lines), shown=[Shown(f, None, f) for f in files],
                          advice="narrow with path= or glob=")
