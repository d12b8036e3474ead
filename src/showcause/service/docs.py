"""The generated sections of docs/: which file holds which section, and what generates it.

`make docs` rewrites them (``python -m showcause.service.docs docs``); a drift test fails when a committed
file differs from what the registries generate now (``--check`` does the same from the command line).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from showcause.core.gendoc import section, splice
from showcause.providers.registry import providers_markdown
from showcause.service.catalog import budgets_markdown, modes_markdown
from showcause.tools.registry import schemas_markdown, tools_markdown

__all__ = ["SECTIONS", "generate", "main", "stale"]

# file under docs/ -> section name -> what generates it. The markers name the same command.
SECTIONS: dict[str, dict[str, Callable[[], str]]] = {
    "tools.md": {"tools": tools_markdown, "tool-schemas": schemas_markdown},
    "modes.md": {"modes": modes_markdown, "budgets": budgets_markdown, "providers": providers_markdown},
}


def generate(docs: Path) -> dict[Path, tuple[str, str]]:
    """Each file's (committed text, text with every generated section regenerated)."""
    out: dict[Path, tuple[str, str]] = {}
    for name, sections in SECTIONS.items():
        path = docs / name
        committed = path.read_text(encoding="utf-8")
        text = committed
        for section_name, make in sections.items():
            text = splice(text, section_name, make())
        out[path] = (committed, text)
    return out


def stale(docs: Path) -> list[str]:
    """The generated sections whose committed text differs from what is generated now, as `file: section`."""
    found = []
    for name, sections in SECTIONS.items():
        committed = (docs / name).read_text(encoding="utf-8")
        found += [f"{name}: {key}" for key, make in sections.items() if section(committed, key) != _body(make())]
    return found


def _body(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``[--check] DOCS_DIR``: rewrite the generated sections, or (``--check``) exit 1 naming the stale ones."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [a for a in args if a != "--check"]
    docs = Path(paths[0] if paths else "docs")
    if check:
        found = stale(docs)
        for item in found:
            print(f"stale generated section: {item} (run `make docs`)", file=sys.stderr)
        return 1 if found else 0
    for path, (committed, text) in generate(docs).items():
        if text != committed:
            path.write_text(text, encoding="utf-8")
            print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
