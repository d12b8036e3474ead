from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any


@dataclass(frozen=True)
class Event:
    event_id: str
    user_id: str
    kind: str
    at: datetime
    value: float


def to_event(record: dict[str, Any]) -> Event:
    at = datetime.fromisoformat(str(record["ts"]).replace("Z", "+00:00"))
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return Event(
        event_id=str(record["id"]),
        user_id=str(record["user"]).strip().lower(),
        kind=str(record.get("type", "unknown")),
        at=at.astimezone(timezone.utc),
        value=float(record.get("value", 0)),
    )
