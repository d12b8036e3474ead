from decimal import Decimal

import pytest

from billing.invoice import Invoice
from billing.tax import UnknownRate


def make() -> Invoice:
    inv = Invoice("2024-0042", "DE")
    inv.add("Espresso beans 250g", 1, Decimal("2.50"), "reduced")
    inv.add("Filter papers", 1, Decimal("2.50"), "reduced")
    inv.add("Grinder service", 1, Decimal("40.00"))
    return inv


def test_totals() -> None:
    inv = make()
    assert inv.subtotal == Decimal("45.00")
    assert inv.total == inv.subtotal + inv.tax_total


def test_lines_reconcile_with_total() -> None:
    inv = make()
    assert sum((line.gross for line in inv.lines), Decimal("0")) == inv.total


def test_tax_by_rate_sums_to_tax_total() -> None:
    inv = make()
    assert sum(inv.tax_by_rate().values(), Decimal("0")) == inv.tax_total
    assert set(inv.tax_by_rate()) == {Decimal("0.07"), Decimal("0.19")}


def test_rejects_bad_quantity_and_rate() -> None:
    inv = Invoice("x", "DE")
    with pytest.raises(ValueError):
        inv.add("nothing", 0, Decimal("1"))
    with pytest.raises(UnknownRate):
        Invoice("y", "US").add("thing", 1, Decimal("1"))
