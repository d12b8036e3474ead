import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone


@dataclass(frozen=True)
class Customer:
    id: int
    fullname: str
    email: str
    opted_in: bool


def _row(row: sqlite3.Row) -> Customer:
    return Customer(row["id"], row["fullname"], row["email"], bool(row["opted_in"]))


def add_customer(conn: sqlite3.Connection, fullname: str, email: str, opted_in: bool = False) -> Customer:
    now = datetime.now(timezone.utc).isoformat()
    with conn:
        cur = conn.execute(
            "INSERT INTO customers (fullname, email, opted_in, created_at) VALUES (?, ?, ?, ?)",
            (fullname.strip(), email.strip().lower(), int(opted_in), now),
        )
    return Customer(int(cur.lastrowid or 0), fullname.strip(), email.strip().lower(), opted_in)


def get_customer(conn: sqlite3.Connection, customer_id: int) -> Customer | None:
    row = conn.execute("SELECT id, fullname, email, opted_in FROM customers WHERE id = ?", (customer_id,)).fetchone()
    return _row(row) if row else None


def search_customers(conn: sqlite3.Connection, text: str) -> list[Customer]:
    pattern = f"%{text.strip()}%"
    rows = conn.execute(
        "SELECT id, fullname, email, opted_in FROM customers WHERE fullname LIKE ? OR email LIKE ? ORDER BY id",
        (pattern, pattern),
    )
    return [_row(r) for r in rows]
