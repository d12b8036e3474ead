from datetime import date

import pytest

from statements.dates import parse_date, parse_legacy_date


def test_parse_date_orders() -> None:
    assert parse_date("31.12.2023", "dmy") == date(2023, 12, 31)
    assert parse_date("12/31/23", "mdy") == date(2023, 12, 31)
    assert parse_date("2023-12-31", "ymd") == date(2023, 12, 31)


def test_parse_date_rejects() -> None:
    with pytest.raises(ValueError):
        parse_date("31.12", "dmy")
    with pytest.raises(ValueError):
        parse_date("31.12.2023", "xyz")


def test_legacy_date_warns() -> None:
    with pytest.warns(DeprecationWarning):
        assert parse_legacy_date("01.02.2020") == date(2020, 2, 1)
