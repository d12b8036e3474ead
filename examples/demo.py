"""`make demo`: the six tools on a bundled change, each call shown exactly as a judge would see it."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from showcause.evidence.ledger import Ledger
from showcause.inputs import open_snapshot, tool_context

CASE = Path(__file__).resolve().parent / "demo-case"
CALLS = [
    ("list_files", {}),
    ("run_test", {"test": "tests/test_cart.py"}),
    ("typecheck", {}),
    ("find_symbol", {"name": "apply_discount"}),
    ("search", {"pattern": "apply_discount", "fixed": True}),
    ("read_file", {"path": "src/shop/cart.py", "start_line": 14, "end_line": 19}),
    ("read_file", {"path": "../case.json"}),
]


def main() -> None:
    console = Console(highlight=False)
    with open_snapshot(case=CASE) as snap:
        changed = ", ".join(f"{p} (+{len(c.added)} -{len(c.removed)})" for p, c in snap.diff.files.items())
        console.print(f"[bold]Change under review:[/] {changed}\n")
        ledger = Ledger(tool_context(snap))
        for name, args in CALLS:
            call = ledger.call(name, args)
            title = f"{call.id} {name} {args}  ({call.ms} ms{', ' + call.isolation if call.isolation else ''})"
            console.print(Panel(Text(call.output), title=title, title_align="left", expand=False))
        artifacts = [a for c in ledger.calls for a in c.artifacts]
        console.print(f"[bold]{len(artifacts)} artifacts introduced by the change[/] (what could back a block):")
        for a in artifacts:
            where = f"{a.file}:{a.line}" if a.line else a.file
            console.print(Text(f"  {a.tool_call} {a.type}: {where} — {a.detail}"))


if __name__ == "__main__":
    main()
