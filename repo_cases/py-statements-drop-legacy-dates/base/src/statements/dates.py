import warnings
from datetime import date

_ORDERS = {"dmy": (0, 1, 2), "mdy": (1, 0, 2), "ymd": (2, 1, 0)}


def _year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < 70 else 1900
    return year


def parse_date(text: str, order: str) -> date:
    """Parse a numeric date with '.', '/' or '-' separators in the given field order."""
    if order not in _ORDERS:
        raise ValueError(f"unknown order {order!r}")
    parts = text.strip().replace("/", ".").replace("-", ".").split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a date: {text!r}")
    d, m, y = (parts[i] for i in _ORDERS[order])
    return date(_year(y), int(m), int(d))


def parse_legacy_date(text: str) -> date:
    warnings.warn("parse_legacy_date is deprecated; use parse_date(text, 'dmy')", DeprecationWarning, stacklevel=2)
    day, month, year = text.strip().split(".")
    return date(int(year), int(month), int(day))
