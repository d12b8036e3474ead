"""Generated docs: the tables of docs/tools.md and docs/modes.md, the tool schemas models are given,
`showcause tools list` and `showcause modes` all come from the registries, and a committed section that
differs from what the registries generate now fails here (run `make docs`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from showcause.cli import app
from showcause.cli.text import modes_text
from showcause.core.gendoc import begin_marker, end_marker, section, splice
from showcause.judges.loop import tool_specs
from showcause.judges.registry import default_mode
from showcause.service.catalog import mode_kinds, modes_markdown
from showcause.service.docs import SECTIONS, main, stale
from showcause.tools.registry import tool_schemas, tools_markdown, tools_text

DOCS = Path(__file__).resolve().parents[1] / "docs"
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")


def _cli(*args: str) -> str:
    proc = subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_committed_docs_are_what_the_registries_generate():
    assert stale(DOCS) == [], "generated sections of docs/ are stale: run `make docs`"


def test_every_generated_section_has_its_markers():
    for name, sections in SECTIONS.items():
        text = (DOCS / name).read_text(encoding="utf-8")
        for key in sections:
            assert section(text, key).strip(), f"{name}: {key} is empty"


def test_a_stale_section_is_found_and_rewritten_and_prose_is_left_alone(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    modes = docs / "modes.md"
    text = modes.read_text(encoding="utf-8")
    edited = text.replace("| `proposal_first_2pass` | code change |", "| `proposal_first_3pass` | code change |")
    edited = edited.replace("# Review modes", "# Review modes, edited by hand")
    modes.write_text(edited, encoding="utf-8")
    assert stale(docs) == ["modes.md: modes"]
    assert main(["--check", str(docs)]) == 1 and "modes.md: modes" in capsys.readouterr().err
    assert main([str(docs)]) == 0 and stale(docs) == []
    assert modes.read_text(encoding="utf-8") == text.replace("# Review modes", "# Review modes, edited by hand")


def test_a_missing_or_doubled_marker_is_an_error():
    body = f"{begin_marker('t', 'x')}\nold\n{end_marker('t')}\n"
    assert splice(f"a\n{body}b\n", "t", "new") == f"a\n{begin_marker('t', 'x')}\nnew\n{end_marker('t')}\nb\n"
    with pytest.raises(ValueError, match="expected one BEGIN and one END marker"):
        section("no markers here", "t")
    with pytest.raises(ValueError, match="found 2 and 2"):
        section(body + body, "t")


def test_the_cli_prints_what_the_docs_hold():
    tools_md, modes_md = ((DOCS / n).read_text(encoding="utf-8") for n in ("tools.md", "modes.md"))
    assert _cli("tools", "list", "--markdown") == tools_markdown() == section(tools_md, "tools")
    assert _cli("modes", "--markdown") == modes_markdown() == section(modes_md, "modes")
    assert _cli("tools", "list") == tools_text() and _cli("modes") == modes_text()
    schemas = json.loads(_cli("tools", "list", "--json"))
    assert schemas == tool_schemas()
    committed = section(tools_md, "tool-schemas").removeprefix("```json\n").removesuffix("```\n")
    assert json.loads(committed) == schemas
    assert [(m["input"], m["name"]) for m in json.loads(_cli("modes", "--json"))] == \
        [(kind, spec.name) for kind, specs in mode_kinds() for spec in specs]


def test_the_model_is_given_the_schemas_the_docs_show():
    committed = section((DOCS / "tools.md").read_text(encoding="utf-8"), "tool-schemas")
    shown = json.loads(committed.removeprefix("```json\n").removesuffix("```\n"))
    assert [{"name": s.name, "description": s.description, "input_schema": s.input_schema}
            for s in tool_specs()] == shown


def test_the_review_help_names_the_defaults_the_specs_declare():
    command = typer.main.get_command(app)
    review = command.commands["review"]   # type: ignore[attr-defined]
    help_text = next(p.help for p in review.params if p.name == "mode")
    without, with_model = (default_mode(has_model=m).name for m in (False, True))
    assert f"default {without}, or {with_model} with --model" in help_text


# Files showcause writes (a bench report), not documents it cites.
_WRITTEN = {"report.md"}


def test_every_document_the_source_cites_is_in_the_repository():
    """A comment or message naming a `.md` file names one this repository has (at its root or under docs/):
    nine comments once cited a DESIGN.md the repository does not hold."""
    root = Path(__file__).resolve().parents[1]
    missing = []
    for path in sorted((root / "src").rglob("*.py")):
        for name in re.findall(r"[\w./-]*\w\.md\b", path.read_text(encoding="utf-8")):
            if name in _WRITTEN or (root / name).is_file() or (root / "docs" / name).is_file():
                continue
            missing.append(f"{path.relative_to(root)}: {name}")
    assert missing == []
