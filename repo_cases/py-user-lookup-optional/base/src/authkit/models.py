from dataclasses import dataclass, field
from datetime import datetime, timezone


@dataclass
class User:
    id: int
    email: str
    password_hash: str
    disabled: bool = False
    roles: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Session:
    user_id: int
    token: str
    created: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
