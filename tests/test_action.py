"""action.yml and the example workflows: valid against committed schemas (tests/test_actionlint.py runs
actionlint and ShellCheck over them too), every expression names an input or step that exists, and the
Action's scripts pass only options `showcause ci github` has."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import typer.main
import yaml

from showcause.cli import app

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = Path(__file__).parent / "schemas"
WORKFLOWS = sorted((ROOT / "examples" / "github").glob("*.yml"))
INPUTS = ["base", "mode", "model", "fail-on", "config", "python", "comment", "sarif", "annotations", "version"]
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def _load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in doc:   # YAML 1.1 reads the key `on` as true
        doc["on"] = doc.pop(True)
    return doc


def _schema(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(validator: jsonschema.Draft202012Validator, doc: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def _expressions(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [e for v in value.values() for e in _expressions(v)]
    if isinstance(value, list):
        return [e for v in value for e in _expressions(v)]
    return [m.strip() for m in _EXPR.findall(value)] if isinstance(value, str) else []


def _check_steps(steps: list[dict[str, Any]], inputs: set[str] | None) -> list[str]:
    """Each `steps.ID` names an earlier step; each `inputs.NAME` a declared input (in an action)."""
    problems, seen = [], set()
    for step in steps:
        for expr in _expressions(step):
            problems += [f"steps.{s} before it is defined" for s in re.findall(r"steps\.([\w-]+)", expr)
                         if s not in seen]
            if inputs is not None:
                problems += [f"unknown input {i}" for i in re.findall(r"inputs\.([\w-]+)", expr) if i not in inputs]
        if "id" in step:
            seen.add(step["id"])
    return problems


def test_the_action_is_valid_and_consistent():
    action = _load(ROOT / "action.yml")
    assert _errors(_schema("github-action.schema.json"), action) == []
    assert list(action["inputs"]) == INPUTS
    assert set(action["outputs"]) == {"verdict", "exit-code", "sarif-file"}
    steps = action["runs"]["steps"]
    assert _check_steps(steps, set(action["inputs"])) == []
    for output in action["outputs"].values():
        assert re.fullmatch(r"\$\{\{ steps\.review\.outputs\.[\w-]+ \}\}", output["value"])
    # Every script a step runs is in the repository.
    for step in steps:
        for script in re.findall(r"\$ACTION_PATH/([\w./-]+)", step.get("run", "")):
            assert (ROOT / script).is_file(), script


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_the_example_workflows_are_valid_and_use_only_the_actions_inputs(path: Path):
    doc = _load(path)
    assert _errors(_schema("github-workflow.schema.json"), doc) == []
    assert {"pull_request", "merge_group"} <= set(doc["on"])
    inputs = set(_load(ROOT / "action.yml")["inputs"])
    for job in doc["jobs"].values():
        assert _check_steps(job["steps"], None) == []
        ours = [s for s in job["steps"] if str(s.get("uses", "")).split("@")[0].endswith("/showcause")]
        assert len(ours) == 1
        assert set(ours[0].get("with", {})) <= inputs
        checkout = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@"))
        assert checkout["with"]["fetch-depth"] == 0   # base and head both come from git objects


def test_the_schemas_refuse_what_github_refuses():
    action = _load(ROOT / "action.yml")
    action["runs"]["steps"][0].pop("shell")            # a composite run step needs its shell
    action["inputs"]["mode"]["defualt"] = "x"          # a misspelt key
    assert len(_errors(_schema("github-action.schema.json"), action)) == 2
    workflow = _load(WORKFLOWS[0])
    workflow["permissions"]["pull-request"] = "write"  # not a permission's name
    assert _errors(_schema("github-workflow.schema.json"), workflow) != []


def test_the_review_script_passes_only_options_the_command_has():
    group = typer.main.get_command(app)
    ci = group.commands["ci"]                           # type: ignore[attr-defined]
    command = ci.commands["github"]                     # type: ignore[attr-defined]
    known = {opt for param in command.params for opt in [*param.opts, *param.secondary_opts]}
    script = (ROOT / "action" / "review.sh").read_text(encoding="utf-8")
    used = set(re.findall(r"(--[a-z][a-z-]+)", script))
    named = {f"--{name}" for name in re.findall(r'"([a-z-]+):\$\{INPUT_', script)}
    flags = {f"--{p}{n}" for n in ("comment", "annotations", "sarif") for p in ("", "no-")}
    assert (used | named) - {"--$2", "--no-$2", "--$name"} <= known | {"--no-"}
    assert named | flags <= known


@pytest.mark.parametrize("script", ["setup.sh", "review.sh"])
def test_the_action_scripts_parse(script: str):
    proc = subprocess.run(["bash", "-n", str(ROOT / "action" / script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_bad_boolean_input_stops_the_review_step_with_exit_2(tmp_path: Path):
    env = {"PATH": "/usr/bin:/bin", "INPUT_COMMENT": "yes", "RUNNER_TEMP": str(tmp_path)}
    proc = subprocess.run(["bash", str(ROOT / "action" / "review.sh")], capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and "input comment must be true or false, not 'yes'" in proc.stderr
