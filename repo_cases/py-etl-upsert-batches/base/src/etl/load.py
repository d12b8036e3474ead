import os
import sqlite3
from collections.abc import Iterable

from etl.transform import Event

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    value REAL NOT NULL
)
"""


def default_db_path() -> str:
    return os.environ.get("ETL_DB")


def connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute(SCHEMA)
    return conn


def load_events(conn: sqlite3.Connection, events: Iterable[Event]) -> int:
    rows = [(e.event_id, e.user_id, e.kind, e.at.isoformat(), e.value) for e in events]
    with conn:
        conn.executemany("INSERT INTO events (event_id, user_id, kind, at, value) VALUES (?, ?, ?, ?, ?)", rows)
    return len(rows)
