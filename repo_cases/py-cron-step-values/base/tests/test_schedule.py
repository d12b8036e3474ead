from datetime import datetime

import pytest

from cronlite.fields import CronSyntaxError
from cronlite.schedule import CronSchedule


def test_next_daily() -> None:
    s = CronSchedule.parse("@daily")
    assert s.next_after(datetime(2024, 2, 28, 13, 5)) == datetime(2024, 2, 29, 0, 0)


def test_weekday_mornings() -> None:
    s = CronSchedule.parse("30 8 * * 1-5")
    # 2024-03-08 is a Friday
    assert s.next_after(datetime(2024, 3, 8, 9, 0)) == datetime(2024, 3, 11, 8, 30)


def test_day_or_weekday_when_both_restricted() -> None:
    s = CronSchedule.parse("0 12 1 * 0")
    assert s.matches(datetime(2024, 6, 1, 12, 0))   # the 1st
    assert s.matches(datetime(2024, 6, 2, 12, 0))   # a Sunday
    assert not s.matches(datetime(2024, 6, 3, 12, 0))


def test_upcoming() -> None:
    s = CronSchedule.parse("0 * * * *")
    runs = s.upcoming(datetime(2024, 1, 1, 22, 30), 3)
    assert [r.hour for r in runs] == [23, 0, 1]


def test_field_count() -> None:
    with pytest.raises(CronSyntaxError):
        CronSchedule.parse("* * *")
