"""No ground truth (case.json, truth.* text) is reachable through any tool or given to a judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from showcause.bench.cases import find_cases
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context

ROOT = Path(__file__).resolve().parents[1]
CASES = find_cases(ROOT / "repo_cases") + find_cases(ROOT / "examples")


def _truth_texts(case: Path) -> list[str]:
    truth = json.loads((case / "case.json").read_text())["truth"]
    return [t for t in (truth.get("issue", ""), truth.get("tempting", "")) if len(t) >= 20]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_truth_is_out_of_reach(case: Path):
    texts = _truth_texts(case)
    with open_snapshot(case=case) as snap:
        assert snap.case is not None
        given = json.dumps(snap.case.__dict__, default=str)
        assert set(snap.case.__dict__) == {"id", "title", "language", "task", "tests", "typecheck", "release", "env"}
        assert all(t not in given for t in texts)
        assert not (snap.head / "case.json").exists() and not (snap.base / "case.json").exists()
        ledger = Ledger(tool_context(snap))
        listing = ledger.call("list_files", {"glob": "case.json"})
        assert listing.output.endswith(": 0 files")
        for path in ("../case.json", "../../case.json", f"../{case.name}/case.json", str(case / "case.json")):
            refused = ledger.call("read_file", {"path": path})
            assert not refused.ok
        for text in texts:
            hits = ledger.call("search", {"pattern": text[:60], "fixed": True})
            assert hits.output.splitlines()[0].endswith(": 0 matching lines"), hits.output[:300]
        found = ledger.call("search", {"pattern": '"truth"', "fixed": True, "path": ".."})
        assert not found.ok
