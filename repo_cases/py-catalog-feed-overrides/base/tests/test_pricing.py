from decimal import Decimal

import pytest

from catalog.db import add_product, connect, set_override, set_rate
from catalog.pricing import UnknownCurrency, convert, get_price


def test_convert_rounds_half_up() -> None:
    assert convert(1999, Decimal("1.0825")) == Decimal("21.64")


def test_get_price_uses_override_and_rate() -> None:
    conn = connect()
    add_product(conn, "A1", "Mug", 1200)
    set_rate(conn, "CHF", "0.95")
    assert get_price(conn, "A1") == Decimal("12.00")
    set_override(conn, "A1", 900, "spring sale")
    assert get_price(conn, "A1", "CHF") == Decimal("8.55")


def test_unknown() -> None:
    conn = connect()
    with pytest.raises(KeyError):
        get_price(conn, "nope")
    add_product(conn, "A1", "Mug", 1200)
    with pytest.raises(UnknownCurrency):
        get_price(conn, "A1", "XXX")
