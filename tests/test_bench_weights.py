"""`showcause bench … --write-weights FILE`: each model's measured block precision, as quorum weights."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import make_case
from showcause.bench.runner import BenchConfig, run_bench
from showcause.bench.weights import block_precision
from showcause.core.errors import InputError

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

NO_CHECKS = {"tests": [], "typecheck": "none"}
MODIFY = json.dumps({"summary": "s", "claims": [{"claim": "the change is wrong", "evidence_refs": [],
                                                 "result": "confirmed", "verdict": "MODIFY"}]})


def _cases(root: Path) -> Path:
    src = "def apply_discount(total, pct):\n    return total * (100 - pct) / 100\n"
    make_case(root / "hook-renamed", {"pkg/pricing.py": src, "settings.json": '{"hook": "apply_discount"}\n'},
              {"pkg/pricing.py": src.replace("apply_discount", "discounted")}, checks=NO_CHECKS,
              truth={"status": "defect", "kind": "reference", "acceptable": ["MODIFY", "REPLACE"],
                     "evidence": ["settings.json:1"]})
    make_case(root / "add-doc", {"README.md": "# x\n"}, {"README.md": "# x\n\nMore words.\n"}, checks=NO_CHECKS,
              truth={"status": "correct", "kind": "none", "acceptable": ["KEEP"]})
    for case in root.iterdir():
        doc = json.loads((case / "case.json").read_text())
        doc["source"] = {"kind": "synthetic", "url": "", "note": ""}
        (case / "case.json").write_text(json.dumps(doc))
    return root


def test_write_weights_measures_each_models_block_precision(tmp_path: Path):
    script = tmp_path / "a.json"
    script.write_text(json.dumps({"turns": [{"content": MODIFY, "usage": {"prompt_tokens": 100,
                                                                          "completion_tokens": 20}}]}))
    a, weights = f"scripted:{script}", tmp_path / "weights.json"
    proc = subprocess.run([str(Path(sys.executable).parent / "showcause"), "bench", str(_cases(tmp_path / "cases")),
                           "--modes", "mechanical,evidence_gate", "--model", a, "--out", str(tmp_path / "o"),
                           "--write-weights", str(weights)], capture_output=True, text=True, timeout=300,
                          env={**os.environ})
    assert proc.returncode == 0, proc.stderr
    # Its one block (the probes' floor on hook-renamed) is on a defect; its unproven MODIFYs were only WARNINGs.
    assert json.loads(weights.read_text()) == {"measure": "block_precision", "scale": 10, "weights": {a: {
        "reviews": 2, "blocks": 1, "right_blocks": 1, "block_precision": 1.0, "modes": ["evidence_gate"],
        "weight": 10}}}


def test_block_precision_counts_successful_blocks_only():
    truth = {"bad": {"status": "defect"}, "fine": {"status": "correct"}}
    records = [{"model": "m", "mode": "quorum", "status": "ok", "verdict": v, "case": c}
               for v, c in (("MODIFY", "bad"), ("REPLACE", "fine"), ("KEEP", "fine"), ("MODIFY", "bad"))]
    records.append({"model": "m", "mode": "quorum", "status": "error", "verdict": "INCONCLUSIVE", "case": "bad"})
    records.append({"model": None, "mode": "mechanical", "status": "ok", "verdict": "MODIFY", "case": "fine"})
    assert block_precision(records, truth) == {"m": {"reviews": 4, "blocks": 3, "right_blocks": 2,
                                                     "block_precision": 0.6667, "modes": ["quorum"], "weight": 7}}
    assert block_precision([{**records[2], "model": "k"}], truth)["k"]["weight"] is None   # never blocked


def test_bench_quorum_mode_needs_its_sources_not_a_model(tmp_path: Path):
    with pytest.raises(InputError, match="--modes quorum needs its sources: --quorum FILE"):
        run_bench(BenchConfig(tmp_path, ("quorum",), 1, 1, tmp_path / "o", models=("scripted:x.json",)))
    assert not (tmp_path / "o").exists()
