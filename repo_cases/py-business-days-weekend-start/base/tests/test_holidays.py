from datetime import date

import pytest

from workdays.holidays import holidays, is_holiday


def test_german_holidays_2024() -> None:
    assert is_holiday(date(2024, 3, 29), "DE")    # Good Friday
    assert is_holiday(date(2024, 4, 1), "DE")     # Easter Monday
    assert is_holiday(date(2024, 5, 9), "DE")     # Ascension
    assert is_holiday(date(2024, 10, 3), "DE")
    assert not is_holiday(date(2024, 4, 2), "DE")


def test_whit_monday() -> None:
    assert is_holiday(date(2024, 5, 20), "DE")
    assert is_holiday(date(2025, 6, 9), "AT")


def test_austrian_corpus_christi() -> None:
    assert is_holiday(date(2024, 5, 30), "AT")


def test_unknown_country() -> None:
    with pytest.raises(KeyError):
        holidays("XX", 2024)
