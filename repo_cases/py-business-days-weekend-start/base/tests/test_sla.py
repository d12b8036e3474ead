from datetime import date

from workdays.sla import due_date


def test_due_dates() -> None:
    assert due_date(date(2024, 4, 8), "standard") == date(2024, 4, 15)
    assert due_date(date(2024, 4, 12), "express") == date(2024, 4, 15)
