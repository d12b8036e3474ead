"""`read_file`: numbered lines of one text file, capped, with how to read on."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from showcause.core.artifacts import Shown
from showcause.core.errors import ToolArgumentError
from showcause.sandbox.paths import confine, is_binary
from showcause.tools.base import Args, ToolContext, ToolOutput
from showcause.tools.search import clip

__all__ = ["ReadFileTool"]


class ReadFileArgs(Args):
    path: str = Field(description="File to read, relative to the repository root.")
    start_line: int = Field(default=1, ge=1, description="First line to show (1-based).")
    end_line: int | None = Field(default=None, ge=1, description="Last line to show (inclusive).")


class ReadFileTool:
    name: ClassVar[str] = "read_file"
    description: ClassVar[str] = "Read numbered lines of a text file (capped per call; the output says how to read on)."
    Arguments: ClassVar[type[Args]] = ReadFileArgs
    read_only: ClassVar[bool] = True

    def run(self, ctx: ToolContext, args: ReadFileArgs) -> ToolOutput:  # type: ignore[override]
        policy = ctx.policy
        path, rel = confine(ctx.root, args.path)
        if not path.is_file():
            raise ToolArgumentError(f"{rel or '.'} is not a regular file (use list_files for directories)")
        size = path.stat().st_size
        if size > policy.paths.max_file_bytes:
            raise ToolArgumentError(f"{rel} is {size} bytes, over the {policy.paths.max_file_bytes}-byte cap; "
                                    "use search with path= to find what you need")
        if is_binary(path):
            raise ToolArgumentError(f"{rel} is a binary file")
        lines = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        total = len(lines)
        if args.end_line is not None and args.end_line < args.start_line:
            raise ToolArgumentError("end_line is before start_line")
        start = args.start_line
        if total == 0 or start > total:
            return ToolOutput(text=f"read_file {rel}: the file has {total} lines; nothing at line {start}")
        last = min(total, args.end_line or total, start + policy.paths.max_read_lines - 1)
        width = len(str(last))
        out = [f"read_file {rel} (lines {start}-{last} of {total})"]
        shown: list[Shown] = []
        for number in range(start, last + 1):
            row = f"{number:>{width}}| {clip(lines[number - 1], policy.paths.max_line_chars, strip=False)}"
            out.append(row)
            shown.append(Shown(rel, number, row))
        if last < total:
            out.append(f"[{total - last} more lines; call again with start_line={last + 1}]")
        return ToolOutput(text="\n".join(out), shown=shown, advice="read a smaller range with start_line/end_line")
