"""The public API: exactly what `showcause.__all__` and `showcause.service.__all__` list, loaded lazily, and
the façade reviewing a change the way the command line does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import showcause
import showcause.service

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = [
    "Artifact", "ChangeSource", "Claim", "DecisionMeta", "DecisionResult", "GatedClaim", "InputError", "ReviewMeta",
    "ReviewOptions", "ReviewResult", "SandboxUnavailable", "ShowcauseError", "ToolCall", "__version__", "exit_code",
    "render_result", "review_change", "review_decision", "run_tool", "sandbox_status",
]
# The library's API: review a change or a decision, run a tool, render, the exit code, the sandbox, triage.
SERVICE = [
    "ChangeSource", "ReviewOptions", "exit_code", "render_result", "review_change", "review_decision", "run_tool",
    "sandbox_status", "should_review",
]


def test_the_exported_members_are_pinned():
    assert showcause.__all__ == PUBLIC
    assert showcause.service.__all__ == SERVICE
    assert sorted(dir(showcause)) == sorted(PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_exported_member_resolves_to_a_public_home(name: str):
    value = getattr(showcause, name)
    home = getattr(value, "__module__", "showcause.core.version")
    assert home.startswith(("showcause.core.", "showcause.service.", "showcause.decision.review")), (name, home)


def test_an_unknown_member_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'engine'"):
        showcause.engine  # noqa: B018


def test_import_showcause_loads_no_review_machinery():
    code = ("import sys, showcause; loaded = sorted(m for m in sys.modules if m.startswith('showcause.')); "
            "print(' '.join(loaded)); showcause.review_change; "
            "print('showcause.service.change' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert all(m.startswith("showcause.core") for m in out[0].split()), out[0]
    assert out[1] == "True"


def test_the_facade_reviews_a_case_as_the_command_line_does():
    case = ROOT / "repo_cases" / "py-cron-step-values"
    result = showcause.review_change(showcause.ChangeSource(case=case))
    cli = subprocess.run([str(ROOT / ".venv/bin/showcause"), "review", "--case", str(case), "--format", "json"],
                         capture_output=True, text=True)
    doc = json.loads(cli.stdout)
    assert (result.verdict, showcause.exit_code(result)) == (doc["verdict"], cli.returncode) == ("MODIFY", 1)
    assert [c.to_json() for c in result.claims] == doc["claims"]
    assert [(t.tool, t.args) for t in result.tool_calls] == [(t["tool"], t["args"]) for t in doc["tool_calls"]]
    assert json.loads(showcause.render_result(result, "json"))["verdict"] == "MODIFY"


def test_bad_input_through_the_facade_is_an_input_error_naming_fields_before_any_work(tmp_path: Path):
    # A library caller is told about the fields it passed; the command line about its options (next test).
    with pytest.raises(showcause.InputError, match=r"^give exactly one of `case` DIR or `repo` PATH$"):
        showcause.review_change(showcause.ChangeSource())
    with pytest.raises(showcause.InputError, match=r"^`case` takes no `diff`, `base` or `head`"):
        showcause.review_change(showcause.ChangeSource(case=tmp_path, base="main"))
    with pytest.raises(showcause.InputError, match=r"^`decision` takes `fmt` json, markdown, text .*not 'sarif'$"):
        showcause.review_decision(ROOT / "examples" / "decision.json", mode=None, model=None, base_url=None,
                                  fmt="sarif", fail_on=None)
    with pytest.raises(showcause.InputError, match="unknown tool 'rm'"):
        showcause.run_tool(showcause.ChangeSource(repo=tmp_path), "rm", {})


def test_the_command_line_shows_each_field_as_its_option(tmp_path: Path):
    from showcause.cli.app import as_flags

    assert as_flags("give exactly one of `case` DIR or `repo` PATH") == "give exactly one of --case DIR or --repo PATH"
    assert as_flags("unknown `fmt` 'pdf'; `showcause ask` and `tier` stay") == \
        "unknown --format 'pdf'; `showcause ask` and `tier` stay"   # only the fields it knows
    cli = [str(ROOT / ".venv/bin/showcause"), "review"]
    both = subprocess.run([*cli, "--case", str(tmp_path), "--repo", str(tmp_path)], capture_output=True, text=True)
    assert (both.returncode, both.stderr) == (2, "showcause: error: give exactly one of --case DIR or --repo PATH\n")
    fmt = subprocess.run([*cli, "--decision", str(ROOT / "examples" / "decision.json"), "--format", "sarif"],
                         capture_output=True, text=True)
    assert fmt.returncode == 2 and fmt.stderr.startswith("showcause: error: --decision takes --format json, ")
