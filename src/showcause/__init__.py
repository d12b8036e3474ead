"""showcause: a code-review judge that must show cause before it blocks a change.

The public API is what `__all__` lists: the review service (`review_change`, `review_decision`, how to
describe a change and its options, `run_tool`, rendering and exit codes, `sandbox_status`) and the result
types. Everything else is internal and may change. The service is imported on first use, so
`import showcause` stays cheap.

    import showcause
    result = showcause.review_change(showcause.ChangeSource(repo=Path("."), base="main", head="HEAD"))
    print(result.verdict, showcause.exit_code(result))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from showcause.core.errors import InputError, SandboxUnavailable, ShowcauseError
from showcause.core.version import __version__

if TYPE_CHECKING:   # for type checkers only: at run time these load lazily, through __getattr__
    from showcause.core.artifacts import Artifact
    from showcause.core.claims import Claim
    from showcause.core.decision_result import DecisionResult
    from showcause.core.meta import DecisionMeta, ReviewMeta
    from showcause.core.records import GatedClaim, ToolCall
    from showcause.core.result import ReviewResult
    from showcause.service import (
        ChangeSource,
        ReviewOptions,
        exit_code,
        render_result,
        review_change,
        review_decision,
        run_tool,
        sandbox_status,
    )

__all__ = [
    "Artifact", "ChangeSource", "Claim", "DecisionMeta", "DecisionResult", "GatedClaim", "InputError", "ReviewMeta",
    "ReviewOptions", "ReviewResult", "SandboxUnavailable", "ShowcauseError", "ToolCall", "__version__", "exit_code",
    "render_result", "review_change", "review_decision", "run_tool", "sandbox_status",
]

_LAZY = {
    "Artifact": "showcause.core.artifacts", "Claim": "showcause.core.claims",
    "DecisionResult": "showcause.core.decision_result", "GatedClaim": "showcause.core.records",
    "ToolCall": "showcause.core.records", "ReviewResult": "showcause.core.result",
    "DecisionMeta": "showcause.core.meta", "ReviewMeta": "showcause.core.meta",
    **{name: "showcause.service" for name in ("ChangeSource", "ReviewOptions", "exit_code", "render_result",
                                              "review_change", "review_decision", "run_tool", "sandbox_status")},
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'showcause' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value   # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
