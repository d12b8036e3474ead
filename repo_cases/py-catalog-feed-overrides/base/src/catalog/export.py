import sqlite3
from dataclasses import dataclass
from decimal import Decimal

from catalog.pricing import convert, fx_rate


@dataclass(frozen=True)
class FeedRow:
    sku: str
    title: str
    price: Decimal
    currency: str


def export_feed(conn: sqlite3.Connection, currency: str = "EUR") -> list[FeedRow]:
    rate = fx_rate(conn, currency)
    rows = conn.execute(
        "SELECT p.sku, p.title, pr.amount_cents FROM products p "
        "JOIN prices pr ON pr.sku = p.sku WHERE p.active = 1 ORDER BY p.sku"
    )
    return [FeedRow(sku, title, convert(cents, rate), currency) for sku, title, cents in rows]
