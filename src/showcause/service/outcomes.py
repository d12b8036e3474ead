"""Outcomes of past reviews, appended to the telemetry log, and what the log says a review was worth.

An outcome is what the caller learnt later: whether the review was acted on (`accepted_review`), whether the
work had to be redone anyway (`later_rework_required`) and whether the review helped (`review_was_useful`).
The latest outcome of a review counts (a correction is a new line, the log is never rewritten).

A **prevented bad change** is a review that asked for a change (MODIFY or REPLACE) whose outcome says it was
accepted and useful: it found a real problem and the problem was acted on. A **miss** is a review that let the
change through (KEEP, or WARNING for code) whose outcome says rework was needed later. Costs are summed over
the reviews that have an outcome (a review nobody marked says nothing about its worth): tokens always, US
dollars over the reviews whose cost is known.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from showcause.core.errors import InputError
from showcause.telemetry import ENV, append, now, read_log, telemetry_path

__all__ = ["outcomes_summary", "record_outcome"]

_REVIEW_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_ASKED_FOR_CHANGE = ("MODIFY", "REPLACE")
_LET_THROUGH = ("KEEP", "WARNING")


def _log(config: Path | None) -> Path:
    path = telemetry_path(config)
    if path is None:
        raise InputError(f"telemetry is off: set [telemetry] path in a `config` file or the {ENV} environment "
                         "variable (docs/telemetry.md)")
    return path


def record_outcome(review_id: Any, accepted_review: Any, later_rework_required: Any, review_was_useful: Any, *,
                   config: Path | None = None) -> dict[str, Any]:
    """Append the outcome of a logged review and return the record. A review id the log does not hold, a value
    that is not a boolean, or telemetry that is off is an InputError (exit 2)."""
    if not isinstance(review_id, str) or not _REVIEW_ID.fullmatch(review_id):
        raise InputError("review_id must be the id of a review (letters, digits, '-' and '_', at most 64)")
    flags = {"accepted_review": accepted_review, "later_rework_required": later_rework_required,
             "review_was_useful": review_was_useful}
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise InputError(f"{name} must be true or false, not {value!r}")
    path = _log(config)
    if not any(r is not None and r.get("type") == "review" and r.get("id") == review_id for r in read_log(path)):
        raise InputError(f"no review {review_id} in the telemetry log {path}")
    record = {"type": "outcome", "id": review_id, "timestamp": now(), **flags}
    try:
        append(path, record)
    except OSError as exc:
        raise InputError(f"cannot write the telemetry log {path}: {exc.strerror or exc}") from None
    return record


def _count(rows: list[dict[str, Any]], key: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for row in rows:
        value = str(row.get(key) or "none")
        out[value] = out.get(value, 0) + 1
    return dict(sorted(out.items()))


def _tokens(review: dict[str, Any]) -> int:
    raw = review.get("usage")
    usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
    total = usage.get("total_tokens")
    if not isinstance(total, int):
        total = sum(v for k, v in usage.items() if k in ("prompt_tokens", "completion_tokens") and isinstance(v, int))
    return total


def _cost(reviews: list[dict[str, Any]], per: int) -> dict[str, Any]:
    """Tokens and dollars of `reviews`, divided by `per` (None when nothing was counted)."""
    tokens = sum(_tokens(r) for r in reviews)
    priced = [r for r in reviews if isinstance(r.get("cost_usd"), int | float) or _tokens(r) == 0]
    usd = sum(float(r.get("cost_usd") or 0.0) for r in priced)
    return {"per": per, "tokens": round(tokens / per, 1) if per else None,
            "usd": round(usd / per, 6) if per and priced else None, "unpriced_reviews": len(reviews) - len(priced)}


def outcomes_summary(config: Path | None = None) -> dict[str, Any]:
    """Counts of the log's reviews and outcomes, and the cost per useful review and per prevented bad change."""
    path = _log(config)
    reviews: dict[str, dict[str, Any]] = {}
    outcomes: dict[str, dict[str, Any]] = {}
    unreadable = orphans = 0
    for record in read_log(path):
        if record is None or record.get("type") not in ("review", "outcome") or not isinstance(record.get("id"), str):
            unreadable += 1
        elif record["type"] == "review":
            reviews[record["id"]] = record
        elif record["id"] in reviews:
            outcomes[record["id"]] = record     # the latest outcome of a review counts
        else:
            orphans += 1
    marked = [reviews[i] for i in outcomes]
    useful = [i for i, o in outcomes.items() if o.get("review_was_useful") is True]
    prevented = [i for i, o in outcomes.items() if o.get("accepted_review") is True
                 and o.get("review_was_useful") is True and reviews[i].get("verdict") in _ASKED_FOR_CHANGE]
    missed = [i for i, o in outcomes.items() if o.get("later_rework_required") is True
              and reviews[i].get("verdict") in _LET_THROUGH]
    rows = list(reviews.values())
    return {
        "log": str(path), "reviews": len(rows), "by_kind": _count(rows, "kind"), "by_mode": _count(rows, "mode"),
        "by_verdict": _count(rows, "verdict"), "failed": sum(1 for r in rows if r.get("status") != "ok"),
        "with_outcome": len(outcomes),
        "accepted": sum(1 for o in outcomes.values() if o.get("accepted_review") is True),
        "rework_required": sum(1 for o in outcomes.values() if o.get("later_rework_required") is True),
        "useful": len(useful), "prevented_bad_changes": len(prevented), "missed": len(missed),
        "cost_per_useful_review": _cost(marked, len(useful)),
        "cost_per_prevented_bad_change": _cost(marked, len(prevented)),
        "unreadable_lines": unreadable, "outcomes_without_review": orphans,
    }
