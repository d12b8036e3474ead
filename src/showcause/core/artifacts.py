"""What a tool call showed: locations (for citation checks) and artifacts (what can back a block)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["ARTIFACT_TYPES", "Artifact", "Shown"]

# The only artifact kinds that can back a MODIFY/REPLACE (docs/gate.md, "What can back a block").
ARTIFACT_TYPES = ("test_regression", "new_type_error", "dangling_reference")


@dataclass(frozen=True)
class Shown:
    """A location a tool printed. `line_text` is the exact output line that shows it."""

    file: str
    line: int | None
    line_text: str
    test: str | None = None     # a test id (`path::name`) when the location is a test


@dataclass(frozen=True)
class Artifact:
    type: str
    file: str
    line: int | None
    detail: str
    line_text: str = ""        # the output line that shows it; an artifact cut from the output is dropped
    tool_call: str = ""
    # What it is about, as a field (never parsed back from `detail`): the test id of a test_regression, the
    # retired name of a dangling_reference, the checker's rule of a new_type_error.
    subject: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("line_text")
        data.pop("subject")     # the stable result fields (docs/gate.md); `detail` says it for readers
        return data
