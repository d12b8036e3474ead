"""`make demo`: the mechanical judge reviews a broken change (blocked, with its evidence) and a good one (KEEP)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from showcause.render import render
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

HERE = Path(__file__).resolve().parent


def show(console: Console, case: str, what: str) -> None:
    with open_snapshot(case=HERE / case) as snap:
        changed = ", ".join(f"{p} (+{len(c.added)} -{len(c.removed)})" for p, c in snap.diff.files.items())
        console.rule(f"[bold]{what}[/]  examples/{case}")
        console.print(Text(f"change: {changed}"))
        result = run_review(tool_context(snap), "mechanical")
    for call in result.tool_calls:
        title = f"{call.id} {call.tool} {call.args}  ({call.ms} ms{', ' + call.isolation if call.isolation else ''})"
        console.print(Panel(Text(call.output), title=title, title_align="left", expand=False))
    console.print(Text(render(result, "text")))
    console.print(Panel(Text(render(result, "markdown")), title="as a PR comment (--format markdown)",
                        title_align="left", expand=False))


def main() -> None:
    console = Console(highlight=False)
    show(console, "demo-case", "A change that breaks things: blocked only with evidence it introduced")
    show(console, "keep-case", "A good change: KEEP, one line, no noise")
    # The command as it runs from anywhere: `showcause` is in this checkout's .venv, not on PATH.
    exe = Path(sys.executable).with_name("showcause")
    console.print(Text(f"Try it on your own repository (from its directory): {exe} review --repo . --base "
                       "origin/main --head HEAD"))
    console.print(Text(f"Or put it on PATH for this shell: source {exe.parent / 'activate'}"))


if __name__ == "__main__":
    main()
