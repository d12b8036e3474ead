import sqlite3
from datetime import datetime, timezone


def place_order(conn: sqlite3.Connection, customer_id: int, total_cents: int) -> int:
    if total_cents <= 0:
        raise ValueError("order total must be positive")
    with conn:
        cur = conn.execute("INSERT INTO orders (customer_id, total_cents, placed_at) VALUES (?, ?, ?)",
                           (customer_id, total_cents, datetime.now(timezone.utc).isoformat()))
    return int(cur.lastrowid or 0)


def lifetime_value(conn: sqlite3.Connection, customer_id: int) -> int:
    row = conn.execute("SELECT COALESCE(SUM(total_cents), 0) FROM orders WHERE customer_id = ?",
                       (customer_id,)).fetchone()
    return int(row[0])
