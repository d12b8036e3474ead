"""The façade's view of the host: which isolation level reviews get here (`showcause sandbox`)."""

from __future__ import annotations

from typing import Any

from showcause.policy import load_policy
from showcause.sandbox.runner import available_isolation
from showcause.sandbox.status import sandbox_report
from showcause.service.inputs import with_isolation

__all__ = ["require_sandbox", "sandbox_status"]


def sandbox_status(isolation: str | None = None) -> tuple[dict[str, Any], str]:
    """(the probes as JSON, the same as text); `doc["error"]` is set when no level a review may use works."""
    return sandbox_report(with_isolation(load_policy(), isolation))


def require_sandbox() -> str:
    """The level the default policy gets; SandboxUnavailable (exit 3) when none that hides the host works."""
    return available_isolation(load_policy())
