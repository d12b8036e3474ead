"""The real `showcause` executable: output contract and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from builders import git_repo, make_case
from isolation import AUTO_LEVEL
from projects import PY_BASE, PY_HEAD

SHOWCAUSE = [str(Path(sys.executable).parent / "showcause")]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SHOWCAUSE, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_case(tmp_path_factory.mktemp("cli") / "clicase", PY_BASE, PY_HEAD,
                     checks={"tests": ["tests/test_ops.py"], "typecheck": "pyright"})


def test_tools_list_is_generated_from_the_registry():
    proc = run("tools", "list", "--json")
    assert proc.returncode == 0
    schemas = json.loads(proc.stdout)
    assert [s["name"] for s in schemas] == ["search", "find_symbol", "read_file", "list_files", "run_test",
                                            "typecheck", "run_probe"]
    search = schemas[0]["input_schema"]
    assert sorted(search["properties"]) == ["case_sensitive", "fixed", "glob", "path", "pattern"]
    assert search["required"] == ["pattern"] and search["additionalProperties"] is False
    assert schemas[5]["input_schema"]["properties"] == {}
    assert schemas[6]["input_schema"]["required"] == ["path", "content"]
    text = run("tools", "list").stdout
    assert "search(pattern, path?, glob?, fixed?, case_sensitive?)" in text
    assert "run_probe(path, content) [runs repository code in the sandbox]" in text
    assert "typecheck(no arguments)" in text


@pytest.mark.isolation
def test_run_json_record(case: Path):
    proc = run("tools", "run", "run_test", "--case", str(case), "--args", '{"test": "tests/test_ops.py"}', "--json")
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout)
    assert set(rec) == {"id", "tool", "args", "ok", "output", "artifacts", "ms", "isolation", "results"}
    assert rec["id"] == "T1" and rec["tool"] == "run_test" and rec["ok"] is True and rec["isolation"] == AUTO_LEVEL
    assert rec["results"][0] == {"test": "tests/test_ops.py::test_add", "head": "failed", "base": "passed",
                                 "runs": {"head": ["failed"] * 3, "base": ["passed"] * 3}}
    assert rec["artifacts"][0]["type"] == "test_regression" and rec["artifacts"][0]["tool_call"] == "T1"
    assert rec["output"].startswith("T1 run_test")


def test_plain_output_is_what_a_model_sees(case: Path):
    proc = run("tools", "run", "read_file", "--case", str(case), "--args", '{"path": "src/calc/ops.py", "end_line": 1}')
    assert proc.returncode == 0
    assert proc.stdout == ("T1 read_file src/calc/ops.py (lines 1-1 of 10)\n"
                           "1| # a header comment shifts every line down\n"
                           "[9 more lines; call again with start_line=2]\n")


@pytest.mark.parametrize("args", ['{"path": "/etc/passwd"}', '{"path": 5}', '{"path": "a", "bogus": 1}', "[1, 2]",
                                  '{"path": "../case.json"}'])
def test_refused_arguments_exit_zero_with_ok_false(case: Path, args: str):
    proc = run("tools", "run", "read_file", "--case", str(case), "--args", args, "--json")
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout)
    assert rec["ok"] is False and "refused" in rec["output"]
    assert "root:x:0" not in rec["output"] and "TRUTH-SENTINEL" not in rec["output"]


@pytest.mark.parametrize("argv,message", [
    (["tools", "run", "nope", "--repo", "."], "unknown tool"),
    (["tools", "run", "search", "--repo", ".", "--args", "{bad json"], "not valid JSON"),
    (["tools", "run", "search", "--args", "{}"], "exactly one of --case DIR or --repo PATH"),
    (["tools", "run", "search", "--repo", "/nonexistent/x", "--args", '{"pattern": "x"}'], "no such directory"),
    (["tools", "run", "search", "--repo", ".", "--head", "HEAD", "--args", '{"pattern": "x"}'], "--head needs --base"),
    (["tools", "run", "search", "--repo", ".", "--base", "HEAD", "--args", '{"pattern": "x"}'],
     "a base ref without a head needs a git repository"),
    (["tools", "run", "search", "--case", "/nonexistent", "--args", '{"pattern": "x"}'], "not a repo case"),
    (["tools", "run", "search", "--repo", ".", "--config", "/nonexistent.toml", "--args", '{"pattern": "x"}'],
     "no such config"),
    (["tools", "frobnicate"], "No such command"),
])
def test_usage_errors_exit_2(tmp_path: Path, argv: list[str], message: str):
    proc = run(*argv, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_git_inputs_and_bad_refs(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"a.py": "def old_name():\n    return 1\n"},
                                     {"a.py": "def new_name():\n    return 1\n"}])
    ok = run("tools", "run", "search", "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--args",
             '{"pattern": "_name"}')
    assert ok.returncode == 0 and ok.stdout.splitlines()[1:] == ["a.py:1: def new_name():"]
    bad = run("tools", "run", "search", "--repo", str(repo), "--base", "nosuchref", "--head", "HEAD", "--args",
              '{"pattern": "x"}')
    assert bad.returncode == 2 and "unknown git ref 'nosuchref'" in bad.stderr
    notrepo = run("tools", "run", "search", "--repo", str(tmp_path), "--base", "a", "--head", "b", "--args", "{}")
    assert notrepo.returncode == 2 and "not a git repository" in notrepo.stderr


def test_patch_that_does_not_apply_exits_2(tmp_path: Path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.py").write_text("a = 1\n")
    patch = tmp_path / "p.diff"
    patch.write_text("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-zzz\n+a = 2\n")
    proc = run("tools", "run", "list_files", "--repo", str(tmp_path / "d"), "--diff", str(patch))
    assert proc.returncode == 2 and "does not apply" in proc.stderr


def test_policy_config_override(case: Path, tmp_path: Path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[sandbox.paths]\nmax_read_lines = 2\n")
    proc = run("tools", "run", "read_file", "--case", str(case), "--config", str(cfg), "--args",
               '{"path": "src/calc/ops.py"}')
    assert proc.returncode == 0 and "(lines 1-2 of 10)" in proc.stdout
    cfg.write_text("[sandbox.paths]\nmax_read_lines = -1\n")
    bad = run("tools", "run", "read_file", "--case", str(case), "--config", str(cfg), "--args", '{"path": "x"}')
    assert bad.returncode == 2 and "max_read_lines must be positive" in bad.stderr
    cfg.write_text("[sandbox]\nno_such_key = 1\n")
    bad = run("tools", "run", "read_file", "--case", str(case), "--config", str(cfg), "--args", '{"path": "x"}')
    assert bad.returncode == 2 and "unknown sandbox policy key" in bad.stderr


@pytest.mark.parametrize("command", [["review"], ["ask"], ["mcp"], ["bench", "run"]])
def test_help_keeps_bracketed_table_names(command: list[str]) -> None:
    """Rich markup reads `[quorum]` as a style and drops it: the help must still name the table."""
    from typer.testing import CliRunner

    from showcause.cli import app

    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    assert "[quorum]" in result.output, result.output
