"""Table cells every benchmark report writes the same way: a rate with its interval, an advantage."""

from __future__ import annotations

from typing import Any

__all__ = ["advantage_cell", "rate_cell"]


def rate_cell(r: dict[str, Any]) -> str:
    """A rate as `60% [31-83] (6/10, +1 failed)`."""
    failed = f", +{r['failed']} failed" if r.get("failed") else ""
    if r["rate"] is None:
        return f"n/a (0 ok runs{failed})"
    lo, hi = r["ci95"]
    return f"{100 * r['rate']:.0f}% [{100 * lo:.0f}-{100 * hi:.0f}] ({r['k']}/{r['n']}{failed})"


def advantage_cell(q: dict[str, Any]) -> str:
    """A question's advantage with its interval, in percentage points: `+40 pp [+0, +80]`."""
    if q.get("advantage") is None:
        return "n/a"
    ci = f" [{100 * q['ci95'][0]:+.0f}, {100 * q['ci95'][1]:+.0f}]" if q.get("ci95") else ""
    return f"{100 * q['advantage']:+.0f} pp{ci}"
