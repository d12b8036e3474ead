from datetime import date, timedelta
from functools import lru_cache

from workdays.easter import easter_sunday

FIXED: dict[str, list[tuple[int, int]]] = {
    "DE": [(1, 1), (5, 1), (10, 3), (12, 25), (12, 26)],
    "AT": [(1, 1), (1, 6), (5, 1), (8, 15), (10, 26), (11, 1), (12, 8), (12, 25), (12, 26)],
}

# Offsets from Easter Sunday.
MOVABLE: dict[str, list[int]] = {
    "DE": [-2, 1, 39, 49],
    "AT": [1, 39, 49, 60],
}


@lru_cache(maxsize=64)
def holidays(country: str, year: int) -> frozenset[date]:
    if country not in FIXED:
        raise KeyError(f"no holiday calendar for {country}")
    easter = easter_sunday(year)
    days = {date(year, m, d) for m, d in FIXED[country]}
    days |= {easter + timedelta(days=offset) for offset in MOVABLE[country]}
    return frozenset(days)


def is_holiday(day: date, country: str) -> bool:
    return day in holidays(country, day.year)
