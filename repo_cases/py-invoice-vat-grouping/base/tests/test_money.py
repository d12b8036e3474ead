from decimal import Decimal

import pytest

from billing.money import format_amount, parse_amount, to_cents


def test_to_cents_rounds_half_up() -> None:
    assert to_cents(Decimal("0.125")) == Decimal("0.13")
    assert to_cents(Decimal("-0.125")) == Decimal("-0.13")


def test_parse_amount() -> None:
    assert parse_amount(" 1,234.50 ") == Decimal("1234.50")
    with pytest.raises(ValueError):
        parse_amount("1.234")
    with pytest.raises(ValueError):
        parse_amount("  ")


def test_format_amount() -> None:
    assert format_amount(Decimal("1234.5"), "EUR") == "1,234.50 EUR"
    assert format_amount(Decimal("-3"), "EUR") == "-3.00 EUR"
