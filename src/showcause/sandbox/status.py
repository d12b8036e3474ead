"""What `showcause sandbox` says: each level's probe, the level a review gets, and why none does."""

from __future__ import annotations

from typing import Any

from showcause.core.errors import SandboxUnavailable
from showcause.policy import SAFE_LEVELS, Policy
from showcause.sandbox.levels import probe
from showcause.sandbox.runner import available_isolation

__all__ = ["sandbox_report"]


def sandbox_report(policy: Policy) -> tuple[dict[str, Any], str]:
    """The report as a JSON document and as text."""
    probes = {lv: probe(lv) for lv in SAFE_LEVELS}
    error: SandboxUnavailable | None = None
    try:
        level: str | None = available_isolation(policy)
    except SandboxUnavailable as exc:
        level, error = None, exc
    doc: dict[str, Any] = {"isolation": level, "asked": policy.process.isolation,
                           "levels": {lv: {"ok": p.ok, "detail": p.detail} for lv, p in probes.items()}}
    lines = [f"{lv:8} {'works' if p.ok else 'does not work: ' + p.detail}" for lv, p in probes.items()]
    lines.append(f"isolation {policy.process.isolation}: {level or 'none that hides the host'}")
    if error:
        doc["error"] = {"code": error.code, "message": error.message}
        lines.append(error.message)
    elif level == "none":
        lines.append("WARNING: repository code will run with no isolation (chosen by name).")
    return doc, "\n".join(lines)
