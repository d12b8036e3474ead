import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS products (
    sku TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS prices (
    sku TEXT PRIMARY KEY REFERENCES products(sku),
    amount_cents INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS price_overrides (
    sku TEXT PRIMARY KEY REFERENCES products(sku),
    amount_cents INTEGER NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS fx_rates (
    currency TEXT PRIMARY KEY,
    rate TEXT NOT NULL
);
"""


def connect(path: str = ":memory:") -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.execute("INSERT OR IGNORE INTO fx_rates (currency, rate) VALUES ('EUR', '1')")
    return conn


def add_product(conn: sqlite3.Connection, sku: str, title: str, cents: int, active: bool = True) -> None:
    with conn:
        conn.execute("INSERT INTO products (sku, title, active) VALUES (?, ?, ?)", (sku, title, int(active)))
        conn.execute("INSERT INTO prices (sku, amount_cents) VALUES (?, ?)", (sku, cents))


def set_override(conn: sqlite3.Connection, sku: str, cents: int, reason: str) -> None:
    with conn:
        conn.execute("INSERT OR REPLACE INTO price_overrides (sku, amount_cents, reason) VALUES (?, ?, ?)",
                     (sku, cents, reason))


def set_rate(conn: sqlite3.Connection, currency: str, rate: str) -> None:
    with conn:
        conn.execute("INSERT OR REPLACE INTO fx_rates (currency, rate) VALUES (?, ?)", (currency, rate))
