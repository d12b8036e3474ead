"""Deep or oversized input files are bad input (exit 2): case.json, decision files, policy TOML, bench state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import write_tree
from deep import DEEP, LISTS, OBJECTS
from showcause.bench.costs import SpendLedger
from showcause.bench.runner import _read_checkpoint
from showcause.core.decision import load_decision
from showcause.core.errors import InputError, exit_status
from showcause.policy import load_policy
from showcause.snapshot.case import load_case_input

# ---- input files -----------------------------------------------------------------------------------------

def test_deep_case_json_is_bad_input(tmp_path: Path):
    write_tree(tmp_path / "case", {"case.json": '{"id": "case", "input": ' + OBJECTS + "}"})
    with pytest.raises(InputError, match="nested deeper") as info:
        load_case_input(tmp_path / "case")
    assert exit_status(info.value) == 2


def test_deep_decision_file_is_bad_input(tmp_path: Path):
    path = tmp_path / "decision.json"
    path.write_text('{"objective": "o", "constraints": ' + LISTS + "}")
    with pytest.raises(InputError, match="nested deeper"):
        load_decision(path)
    path.write_text(json.dumps({"objective": "o" * 1_000_001}))
    with pytest.raises(InputError, match="larger than 1000000 bytes"):
        load_decision(path)


@pytest.mark.parametrize("text", ["x = " + LISTS, "[review]\n" + "k" + ".k" * DEEP + " = 1\n"])
def test_deep_policy_toml_is_bad_input(tmp_path: Path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(InputError, match="cannot read policy") as info:
        load_policy(path)
    assert exit_status(info.value) == 2


def test_bench_resume_files_are_bounded(tmp_path: Path):
    (tmp_path / "run.json").write_text(OBJECTS)
    with pytest.raises(InputError, match="nested deeper"):
        _read_checkpoint(tmp_path, {}, resume=True)
    (tmp_path / "run.json").write_text("{}")
    record = {"case": "c", "mode": "mechanical", "model": None, "run": 1}
    (tmp_path / "records.jsonl").write_text("\n".join([LISTS, "[1]", '{"case": "c"}', json.dumps(record)]))
    assert list(_read_checkpoint(tmp_path, {}, resume=True).values()) == [record]
    (tmp_path / "spend.jsonl").write_text("\n".join([OBJECTS, "5", '{"charged_usd": 0.25}']))
    assert SpendLedger(tmp_path / "spend.jsonl", None).spent == 0.25
