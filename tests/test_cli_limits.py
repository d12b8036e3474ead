"""The real `showcause` executable on input nested 100,000 levels deep: documented exit codes, no traceback.

Exit 2 for bad CLI input (`--args`, case.json, a decision file, a TOML config), exit 3 INCONCLUSIVE with
MALFORMED_RESPONSE for a model's deep answer (after its one repair turn), a refused call (`ok: false`) for
deep tool arguments, and never exit 1 (a block) or a Python traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders import make_case, write_tree
from deep import DEEP, NESTED, OPEN
from llm_servers import OpenAIServer, raw, turn

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
KEEP = '{"summary": "fine", "claims": []}'


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc


def review_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-1000:])
    result: dict[str, Any] = json.loads(proc.stdout)
    assert result["verdict"] == "INCONCLUSIVE"
    return result


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_case(tmp_path_factory.mktemp("limits") / "limitcase", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})


@pytest.fixture(scope="module")
def budget(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Each deep text is ~30,000 tokens by the loop's estimate: room for them, so the parse is what is tested.
    path = tmp_path_factory.mktemp("budget") / "budget.toml"
    path.write_text("[review]\nmax_review_tokens = 10_000_000\n")
    return path


def script(tmp_path: Path, turns: list[dict[str, Any]]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


# ---- tools run --args -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [OPEN, "{" * DEEP, '{"":' * 25_000, '{"pattern": ' + "[" * 30_000])
def test_deep_args_are_bad_input(case: Path, args: str):
    proc = run("tools", "run", "search", "--case", str(case), "--args", args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"showcause: error: --args refused: {NESTED} (at character ")
    assert proc.stderr.endswith(")\n") and proc.stderr.count("\n") == 1


# ---- a model: scripted and over HTTP ----------------------------------------------------------------------

def deep_tool_turns() -> list[dict[str, Any]]:
    return [{"tool_calls": [{"name": "search", "arguments": '{"pattern": ' + OPEN}]},
            {"content": '{"summary": "x", "claims": ' + OPEN}, {"content": "{" * DEEP}]


def check_refused_call_and_malformed_answer(result: dict[str, Any]) -> None:
    assert result["error"]["code"] == "MALFORMED_RESPONSE" and NESTED in result["error"]["message"]
    [refused] = [c for c in result["tool_calls"] if c["tool"] == "search" and not c["ok"]]
    assert f"search: refused: arguments {NESTED}" in refused["output"]


@pytest.mark.isolation
def test_scripted_deep_arguments_and_answers(case: Path, budget: Path, tmp_path: Path):
    proc = run("review", "--case", str(case), "--model", script(tmp_path, deep_tool_turns()), "--config",
               str(budget), "--format", "json")
    check_refused_call_and_malformed_answer(review_json(proc))


@pytest.mark.isolation
def test_scripted_deep_answer_then_a_good_repair(case: Path, budget: Path, tmp_path: Path):
    turns = [{"content": "{" * DEEP}, {"content": KEEP}]
    proc = run("review", "--case", str(case), "--model", script(tmp_path, turns), "--config", str(budget),
               "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["verdict"] == "KEEP"


@pytest.mark.isolation
def test_scripted_file_with_deep_argument_objects(case: Path, tmp_path: Path):
    path = tmp_path / "inline.json"   # the arguments as a JSON object: the file itself is too deep
    path.write_text('{"turns": [{"tool_calls": [{"name": "search", "arguments": {"pattern": ' + OPEN + "}}]}]}")
    result = review_json(run("review", "--case", str(case), "--model", f"scripted:{path}", "--format", "json"))
    assert result["error"]["code"] == "CONFIG_ERROR" and NESTED in result["error"]["message"]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


def http_review(case: Path, budget: Path, server: OpenAIServer) -> subprocess.CompletedProcess[str]:
    return run("review", "--case", str(case), "--model", "openai:deep-model", "--base-url", server.url,
               "--config", str(budget), "--format", "json", env={"OPENAI_API_KEY": "sk-test-deep"})


@pytest.mark.isolation
def test_openai_wire_deep_arguments_and_answers(case: Path, budget: Path, server: OpenAIServer):
    for t in deep_tool_turns():
        server.add_turns(turn(t.get("content", ""), [(c["name"], c["arguments"]) for c in t.get("tool_calls", [])]))
    check_refused_call_and_malformed_answer(review_json(http_review(case, budget, server)))
    assert len(server.posts()) == 3   # the tool turn, the answer, the one repair


@pytest.mark.isolation
def test_openai_wire_deep_response_body(case: Path, budget: Path, server: OpenAIServer):
    server.fail(raw(b'{"choices": [{"message": {"content": "x", "tool_calls": ' + OPEN.encode() + b"}}]}"))
    result = review_json(http_review(case, budget, server))
    assert result["error"]["code"] == "MALFORMED_RESPONSE" and NESTED in result["error"]["message"]


# ---- input files ------------------------------------------------------------------------------------------

@pytest.mark.isolation
def test_deep_case_json(tmp_path: Path):
    write_tree(tmp_path / "deepcase", {"case.json": '{"id": "deepcase", "input": ' + OPEN, "base/a.py": "x\n"})
    (tmp_path / "deepcase" / "patch.diff").write_text("")
    for argv in (["review", "--format", "json"], ["tools", "run", "list_files"]):
        proc = run(*argv, "--case", str(tmp_path / "deepcase"))
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.startswith("showcause: error: ") and NESTED in proc.stderr
    proc = run("cases", "verify", str(tmp_path / "deepcase"))   # its own contract: exit 1, a failed label
    assert proc.returncode == 1 and proc.stdout.startswith("FAIL deepcase") and NESTED in proc.stdout


def test_deep_decision_file(tmp_path: Path):
    path = tmp_path / "decision.json"
    path.write_text('{"objective": "o", "evidence": ' + OPEN)
    proc = run("review", "--decision", str(path), "--model", "scripted:/nonexistent.json", "--format", "json")
    assert proc.returncode == 2 and proc.stderr == f"showcause: error: {path}: {NESTED} (at character 94)\n"


@pytest.mark.parametrize("toml", ["[review]\nmax_turns = " + OPEN, "[review]\n" + "k." * DEEP + "k = 1\n",
                                  "x = " + "{ a = " * DEEP])
def test_deep_config_toml(case: Path, tmp_path: Path, toml: str):
    config = tmp_path / "config.toml"
    config.write_text(toml)
    for argv in (["review", "--case", str(case), "--format", "json"],
                 ["tools", "run", "list_files", "--case", str(case)]):
        proc = run(*argv, "--config", str(config))
        assert proc.returncode == 2 and proc.stderr.startswith(f"showcause: error: cannot read policy {config}: ")


def test_a_repository_s_deep_config(tmp_path: Path):
    deep = make_case(tmp_path / "repoconf", {"a.py": "x = 1\n", ".showcause.toml": "[sandbox]\nx = " + OPEN},
                     {"a.py": "x = 2\n"})
    proc = run("review", "--case", str(deep), "--format", "json")
    assert proc.returncode == 2 and "cannot read policy" in proc.stderr and NESTED in proc.stderr


# ---- JSON the code under test writes ----------------------------------------------------------------------

@pytest.mark.isolation
def test_report_rows_forged_by_the_code_under_test(tmp_path: Path):
    forger = ("import os\n\n\ndef test_forges_rows():\n"
              "    with open(os.environ['SHOWCAUSE_REPORT'], 'a', encoding='utf-8') as fh:\n"
              f"        fh.write('{'[' * 5000}' * 20 + '\\n[1]\\n\"row\"\\n7\\n')\n")
    forged = make_case(tmp_path / "forger", {"a.py": "x = 1\n", "tests/test_forge.py": forger},
                       {"a.py": "x = 2\n"}, checks={"tests": ["tests/test_forge.py"], "typecheck": "none"})
    proc = run("tools", "run", "run_test", "--case", str(forged), "--args", '{"test": "tests/test_forge.py"}',
               "--json")
    assert proc.returncode == 0, proc.stderr[-1000:]
    record = json.loads(proc.stdout)
    assert record["ok"] and record["results"] == [
        {"test": "tests/test_forge.py::test_forges_rows", "head": "passed", "base": None}]


# ---- the last-resort handler --------------------------------------------------------------------------------

CRASH = ("import sys\nfrom showcause import cli\n"
         "def boom(*args, **kwargs):\n    raise RuntimeError('unexpected\\nfailure')\n"
         "from showcause.cli import review\nreview.modes_text = boom\n"
         "sys.argv = ['showcause', 'modes']\ncli.main()\n")


@pytest.mark.parametrize("debug", ["", "1"])
def test_an_unexpected_exception_is_one_line_and_exit_3(debug: str):
    env = {**os.environ, "SHOWCAUSE_DEBUG": debug}
    proc = subprocess.run([sys.executable, "-c", CRASH], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 3
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("showcause: internal error: RuntimeError: unexpected failure")
    if debug:
        assert "Traceback" in proc.stderr
    else:
        assert proc.stderr == last + "\n" and "SHOWCAUSE_DEBUG=1" in last


def test_exit_codes_pass_the_handler_untouched(case: Path):
    assert run("tools", "run", "nope", "--case", str(case)).returncode == 2
    assert run("modes").returncode == 0
    assert run("tools", "frobnicate").returncode == 2
