"""`search`: ripgrep over the tree, capped hits with a total count and advice to narrow."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from showcause.core.artifacts import Shown
from showcause.core.errors import ToolArgumentError
from showcause.core.rg import rg_search
from showcause.sandbox.paths import confine
from showcause.tools.base import Args, ToolContext, ToolOutput

__all__ = ["SearchTool", "clip"]


def clip(text: str, limit: int, *, strip: bool = True) -> str:
    """Cut a long line (and say so); `strip=False` keeps indentation."""
    text = text.strip() if strip else text.rstrip()
    return text if len(text) <= limit else text[:limit] + " …[line cut]"


class SearchArgs(Args):
    pattern: str = Field(description="Regular expression (Rust regex syntax), or a literal with fixed=true.")
    path: str | None = Field(default=None, description="File or directory to search, relative to the root.")
    glob: str | None = Field(default=None, description="Only files matching this glob, e.g. '*.py' or 'src/**'.")
    fixed: bool = Field(default=False, description="Treat the pattern as a literal string.")
    case_sensitive: bool = Field(default=True, description="Match case exactly (default true).")

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, v: str) -> str:
        if not v:
            raise ValueError("must not be empty")
        if "\x00" in v:
            raise ValueError("must not contain NUL")
        return v

    @field_validator("glob")
    @classmethod
    def _glob(cls, v: str | None) -> str | None:
        if v is not None and ("\x00" in v or "\n" in v or not v.strip()):
            raise ValueError("must be a non-empty single-line glob")
        return v


class SearchTool:
    name: ClassVar[str] = "search"
    description: ClassVar[str] = (
        "Search file contents with ripgrep. Returns `file:line: text` hits (capped) and the total count.")
    Arguments: ClassVar[type[Args]] = SearchArgs
    read_only: ClassVar[bool] = True

    def run(self, ctx: ToolContext, args: SearchArgs) -> ToolOutput:  # type: ignore[override]
        policy = ctx.policy
        if len(args.pattern) > policy.search.max_pattern_chars:
            raise ToolArgumentError(f"pattern longer than {policy.search.max_pattern_chars} characters")
        _abs, rel = confine(ctx.root, args.path or "")
        hits, total = rg_search(ctx.root, args.pattern, rel, glob=args.glob, fixed=args.fixed,
                                case_sensitive=args.case_sensitive, limit=policy.output.max_search_hits,
                                timeout=policy.search.timeout_s)
        where = f" in {rel}" if rel else ""
        where += f" (glob {args.glob})" if args.glob else ""
        head = f"search {args.pattern!r}{where}: {total} matching line{'s' * (total != 1)}"
        lines = [head]
        shown: list[Shown] = []
        for hit in hits:
            line = f"{hit.path}:{hit.line}: {clip(hit.text, policy.paths.max_line_chars)}"
            lines.append(line)
            shown.append(Shown(hit.path, hit.line, line))
        if total > len(hits):
            lines.append(f"[showing the first {len(hits)} of {total}; narrow with path=, glob= or a more specific "
                         "pattern]")
        return ToolOutput(text="\n".join(lines), shown=shown,
                          advice="narrow with path=, glob= or a more specific pattern")
