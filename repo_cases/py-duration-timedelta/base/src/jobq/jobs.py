from dataclasses import dataclass, field
from typing import Any


@dataclass
class Job:
    name: str
    handler: str
    timeout_s: int
    max_attempts: int = 3
    payload: dict[str, Any] = field(default_factory=dict)
    attempts: int = 0
