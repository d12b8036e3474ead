import json
import sqlite3
import time
from typing import Any, Protocol

KEY_TTL_S = 24 * 3600


class IdempotencyStore(Protocol):
    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, response: dict[str, Any]) -> None: ...


class SqlIdempotencyStore:
    """Idempotency keys in the shared payments database."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        conn.execute("CREATE TABLE IF NOT EXISTS idempotency_keys "
                     "(key TEXT PRIMARY KEY, response TEXT NOT NULL, created REAL NOT NULL)")

    def get(self, key: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT response, created FROM idempotency_keys WHERE key = ?", (key,)).fetchone()
        if row is None or time.time() - row[1] > KEY_TTL_S:
            return None
        return json.loads(row[0])

    def put(self, key: str, response: dict[str, Any]) -> None:
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO idempotency_keys (key, response, created) VALUES (?, ?, ?)",
                              (key, json.dumps(response), time.time()))
