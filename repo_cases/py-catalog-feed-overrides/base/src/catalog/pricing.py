import sqlite3
from decimal import ROUND_HALF_UP, Decimal


class UnknownCurrency(LookupError):
    pass


def convert(cents: int, rate: Decimal) -> Decimal:
    return (Decimal(cents) / 100 * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def fx_rate(conn: sqlite3.Connection, currency: str) -> Decimal:
    row = conn.execute("SELECT rate FROM fx_rates WHERE currency = ?", (currency,)).fetchone()
    if row is None:
        raise UnknownCurrency(currency)
    return Decimal(row[0])


def get_price(conn: sqlite3.Connection, sku: str, currency: str = "EUR") -> Decimal:
    """The price a customer pays for one unit of `sku`, in `currency`."""
    row = conn.execute(
        "SELECT COALESCE(o.amount_cents, p.amount_cents) FROM prices p "
        "LEFT JOIN price_overrides o ON o.sku = p.sku WHERE p.sku = ?",
        (sku,),
    ).fetchone()
    if row is None:
        raise KeyError(sku)
    return convert(int(row[0]), fx_rate(conn, currency))
