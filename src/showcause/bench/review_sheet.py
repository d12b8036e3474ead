"""The mode-blind human review of a decision bench: `review-sheet.csv` and its `sheet-key.json`.

The sheet has one row per successful result on a flawed case x each required observation of that case,
with what the reviewer wrote (risks, alternative, probe) and an empty `hit` column for a person to fill
with 1 (the answer makes the observation) or 0. The arm that wrote an answer is hidden behind an item id
(a seeded shuffle); only the key maps items back to (mode, model, run). `ingest` reads both back and
counts, per arm, how many required observations were made.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from showcause.bench.decision_casefile import FLAWED
from showcause.bench.metrics import arm_label, wilson
from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["COLUMNS", "KEY", "SHEET", "coverage_text", "export_sheet", "ingest_sheet"]

SHEET = "review-sheet.csv"
KEY = "sheet-key.json"
COLUMNS = ("row", "item", "case", "title", "required_observation", "recommendation", "risks", "alternative",
           "probe", "hit")
_YES, _NO = {"1", "y", "yes", "true", "x"}, {"0", "n", "no", "false"}


def _row_texts(answer: dict[str, Any]) -> tuple[str, str, str, str]:
    probe = answer.get("falsification_probe") or {}
    return (answer.get("recommendation") or "", " | ".join(answer.get("material_risks") or []),
            answer.get("better_alternative") or "",
            " → ".join(p for p in (probe.get("description"), probe.get("expected_signal")) if p))


def export_sheet(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]], out: Path, seed: int) -> int:
    """Write the sheet and its key into `out`; returns the number of rows."""
    results = [r for r in records if r["status"] == "ok" and truth[r["case"]]["status"] in FLAWED
               and truth[r["case"]]["required_observations"]]
    rng = random.Random(f"review-sheet:{seed}")
    rng.shuffle(results)   # item numbers, and so row order within a case, say nothing about the arm
    items = {id(r): f"I{n:04d}" for n, r in enumerate(results, 1)}
    key = {"items": {items[id(r)]: {"case": r["case"], "mode": r["mode"], "model": r.get("model"), "run": r["run"]}
                     for r in results}, "rows": {}}
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    n = 0
    for r in sorted(results, key=lambda r: (r["case"], items[id(r)])):
        t = truth[r["case"]]
        for i, observation in enumerate(t["required_observations"]):
            n += 1
            row = f"R{n:04d}"
            key["rows"][row] = {"item": items[id(r)], "observation": i}
            writer.writerow([row, items[id(r)], r["case"], t.get("title", ""), observation,
                             *_row_texts(r.get("answer") or {}), ""])
    (out / SHEET).write_text(buf.getvalue(), encoding="utf-8")
    (out / KEY).write_text(json.dumps(key, indent=2), encoding="utf-8")
    return n


def _read(sheet: Path, key_path: Path) -> tuple[list[dict[str, str]], dict[str, Any]]:
    try:
        rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8"))))
        key = jsonsafe.load_file(key_path, max_bytes=jsonsafe.MAX_RECORD_BYTES)
    except (OSError, ValueError, csv.Error) as exc:
        raise InputError(f"cannot read the sheet or its key: {exc}") from None
    if not isinstance(key, dict) or not isinstance(key.get("items"), dict) or not isinstance(key.get("rows"), dict):
        raise InputError(f"{key_path}: not a sheet key")
    if not rows or set(COLUMNS) - set(rows[0]):
        raise InputError(f"{sheet}: not a review sheet (columns {', '.join(COLUMNS)})")
    return rows, key


def ingest_sheet(sheet: Path, key_path: Path) -> dict[str, dict[str, Any]]:
    """Per arm: required observations made (hit 1) over those reviewed, with a Wilson interval; rows with an
    empty `hit` are counted as not reviewed. A row the key does not know, or a `hit` that is neither 0 nor
    1, is bad input."""
    rows, key = _read(sheet, key_path)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])   # hits, reviewed, not reviewed
    for row in rows:
        known = key["rows"].get(row["row"])
        if known is None or known.get("item") != row["item"] or row["item"] not in key["items"]:
            raise InputError(f"{sheet}: row {row['row']!r} (item {row['item']!r}) is not in the key")
        item = key["items"][row["item"]]
        c = counts[arm_label(item["mode"], item.get("model"))]
        mark = (row["hit"] or "").strip().lower()
        if not mark:
            c[2] += 1
        elif mark in _YES or mark in _NO:
            c[0] += mark in _YES
            c[1] += 1
        else:
            raise InputError(f"{sheet}: row {row['row']}: hit must be 1 or 0 (or empty), not {row['hit']!r}")
    out = {}
    for arm, (k, n, pending) in sorted(counts.items()):
        lo, hi = wilson(k, n)
        out[arm] = {"hits": k, "reviewed": n, "not_reviewed": pending, "coverage": round(k / n, 4) if n else None,
                    "ci95": [round(lo, 4), round(hi, 4)]}
    return out


def coverage_text(coverage: dict[str, dict[str, Any]]) -> str:
    lines = ["| arm | required observations made | coverage [95% CI] | not reviewed |", "|---|---|---|---|"]
    for arm, c in coverage.items():
        rate = "n/a" if c["coverage"] is None else \
            f"{100 * c['coverage']:.0f}% [{100 * c['ci95'][0]:.0f}-{100 * c['ci95'][1]:.0f}]"
        lines.append(f"| {arm} | {c['hits']}/{c['reviewed']} | {rate} | {c['not_reviewed']} |")
    return "\n".join(lines) + "\n"
