from datetime import date, timedelta

from workdays.holidays import is_holiday


def is_business_day(day: date, country: str) -> bool:
    return day.weekday() < 5 and not is_holiday(day, country)


def add_business_days(start: date, days: int, country: str) -> date:
    """The date `days` business days after `start` (days >= 0)."""
    if days < 0:
        raise ValueError("days must be >= 0")
    current = start
    remaining = days
    while remaining > 0:
        current += timedelta(days=1)
        if is_business_day(current, country):
            remaining -= 1
    return current


def business_days_between(start: date, end: date, country: str) -> int:
    """Business days in the half-open interval (start, end]."""
    if end < start:
        return -business_days_between(end, start, country)
    count = 0
    current = start
    while current < end:
        current += timedelta(days=1)
        if is_business_day(current, country):
            count += 1
    return count
