from decimal import Decimal

from catalog.db import add_product, connect, set_rate
from catalog.export import export_feed


def test_export_active_products_sorted() -> None:
    conn = connect()
    add_product(conn, "B2", "Plate", 800)
    add_product(conn, "A1", "Mug", 1200)
    add_product(conn, "C3", "Old bowl", 500, active=False)
    set_rate(conn, "GBP", "0.85")
    rows = export_feed(conn, "GBP")
    assert [(r.sku, r.price) for r in rows] == [("A1", Decimal("10.20")), ("B2", Decimal("6.80"))]
