"""Each model's measured block precision, written as quorum weights (`showcause bench … --write-weights FILE`).

Block precision is, over a model's successful reviews that blocked (gated MODIFY or REPLACE), the share on
cases whose truth is not `correct`. A quorum's weights are positive integers, so each model also gets
`weight` = round(10 * precision), at least 1: copy it into the `weight` of the source that runs that model.
A model that never blocked has no precision and no weight (nothing was measured).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from showcause.bench.metrics import BLOCKING
from showcause.core.errors import InputError

__all__ = ["block_precision", "write_weights"]

WEIGHT_SCALE = 10


def block_precision(records: list[dict[str, Any]], truth: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per model (records without a model are left out): reviews, blocks, right blocks, precision, weight."""
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("model") and r.get("status") == "ok":
            by_model[str(r["model"])].append(r)
    out: dict[str, dict[str, Any]] = {}
    for model, rs in by_model.items():
        blocks = [r for r in rs if r.get("verdict") in BLOCKING]
        right = sum(truth[r["case"]]["status"] != "correct" for r in blocks)
        precision = round(right / len(blocks), 4) if blocks else None
        out[model] = {"reviews": len(rs), "blocks": len(blocks), "right_blocks": right,
                      "block_precision": precision, "modes": sorted({str(r["mode"]) for r in rs}),
                      "weight": None if precision is None else max(1, round(WEIGHT_SCALE * precision))}
    return out


def write_weights(path: Path, records: list[dict[str, Any]], truth: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Write `{"weights": {model: {...}}}` to `path` (InputError when it cannot be written) and return it."""
    data = {"measure": "block_precision", "scale": WEIGHT_SCALE, "weights": block_precision(records, truth)}
    try:
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--write-weights {path}: cannot write: {exc.strerror}") from None
    return data
