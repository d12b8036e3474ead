from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any


@dataclass
class Context:
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    sessions: dict[str, datetime] = field(default_factory=dict)
    audit_log: list[dict[str, Any]] = field(default_factory=list)
    archive: list[dict[str, Any]] = field(default_factory=list)
    search_index: dict[str, set[str]] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)
    outbox: list[str] = field(default_factory=list)
