from decimal import Decimal

from store.pricing import apply_discount


def test_rounding_half_up():
    assert apply_discount(Decimal("0.05"), 50) == Decimal("0.03")
