import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class PoolSettings:
    dsn: str
    min_size: int = 1
    max_size: int = 5
    acquire_timeout: float = 10.0
    max_conn_age: float = 3600.0

    def __post_init__(self) -> None:
        if not 0 <= self.min_size <= self.max_size:
            raise SettingsError("need 0 <= min_size <= max_size")
        if self.acquire_timeout <= 0 or self.max_conn_age <= 0:
            raise SettingsError("timeouts must be positive")


def from_mapping(data: dict[str, Any]) -> PoolSettings:
    pool = data.get("pool", {})
    try:
        dsn = str(data["database"]["dsn"])
    except KeyError:
        raise SettingsError("database.dsn is required") from None
    return PoolSettings(
        dsn=dsn,
        min_size=int(pool.get("min_size", 1)),
        max_size=int(pool.get("max_size", 5)),
        acquire_timeout=float(pool.get("acquire_timeout", 10.0)),
        max_conn_age=float(pool.get("max_conn_age", 3600.0)),
    )


def load(path: Path) -> PoolSettings:
    with path.open("rb") as fh:
        return from_mapping(tomllib.load(fh))
