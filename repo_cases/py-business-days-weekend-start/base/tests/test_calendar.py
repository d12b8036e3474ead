from datetime import date

import pytest

from workdays.calendar import add_business_days, business_days_between, is_business_day


def test_is_business_day() -> None:
    assert is_business_day(date(2024, 4, 3), "DE")
    assert not is_business_day(date(2024, 4, 6), "DE")     # Saturday
    assert not is_business_day(date(2024, 4, 1), "DE")     # Easter Monday


def test_add_business_days_skips_weekend_and_holiday() -> None:
    # Thursday 2024-03-28 + 1 -> Good Friday, weekend, Easter Monday -> Tuesday
    assert add_business_days(date(2024, 3, 28), 1, "DE") == date(2024, 4, 2)
    assert add_business_days(date(2024, 4, 3), 0, "DE") == date(2024, 4, 3)
    with pytest.raises(ValueError):
        add_business_days(date(2024, 4, 3), -1, "DE")


def test_between() -> None:
    assert business_days_between(date(2024, 4, 5), date(2024, 4, 12), "DE") == 5
    assert business_days_between(date(2024, 4, 12), date(2024, 4, 5), "DE") == -5
