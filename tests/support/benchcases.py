"""The tiny bench cases the bench tests share: real projects with no tests and no typecheck, so a review
costs a snapshot, the gate and at most one search probe."""

from __future__ import annotations

import json
from pathlib import Path

from builders import make_case

NO_CHECKS = {"tests": [], "typecheck": "none"}
CORRECT = {"status": "correct", "kind": "none", "acceptable": ["KEEP"]}


def bench_cases(root: Path) -> Path:
    """Three tiny real projects (no tests, no typecheck): a reference defect and two correct changes."""
    src = "def apply_discount(total, pct):\n    return total * (100 - pct) / 100\n"
    make_case(root / "hook-renamed", {"pkg/pricing.py": src, "settings.json": '{"hook": "apply_discount"}\n'},
              {"pkg/pricing.py": src.replace("apply_discount", "discounted")}, checks=NO_CHECKS,
              truth={"status": "defect", "kind": "reference", "acceptable": ["MODIFY", "REPLACE"],
                     "evidence": ["settings.json:1"]})
    make_case(root / "add-helper", {"pkg/util.py": "def one():\n    return 1\n"},
              {"pkg/util.py": "def one():\n    return 1\n\n\ndef two():\n    return 2\n"}, checks=NO_CHECKS,
              truth=CORRECT)
    make_case(root / "add-doc", {"README.md": "# x\n"}, {"README.md": "# x\n\nMore words.\n"}, checks=NO_CHECKS,
              truth=CORRECT)
    for case in root.iterdir():
        doc = json.loads((case / "case.json").read_text())
        doc["source"] = {"kind": "synthetic", "url": "", "note": ""}
        (case / "case.json").write_text(json.dumps(doc))
    return root


def scripted(path: Path, content: str, cost: float) -> str:
    path.write_text(json.dumps({"turns": [{"content": content, "usage": {
        "prompt_tokens": 100, "completion_tokens": 20, "cost_usd": cost}}]}))
    return f"scripted:{path}"
