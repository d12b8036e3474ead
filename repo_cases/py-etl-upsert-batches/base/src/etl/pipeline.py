import sqlite3
from pathlib import Path

from etl.extract import read_jsonl
from etl.load import load_events
from etl.transform import to_event


def run(path: Path, conn: sqlite3.Connection) -> int:
    return load_events(conn, (to_event(r) for r in read_jsonl(path)))
