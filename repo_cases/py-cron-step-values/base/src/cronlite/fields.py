from dataclasses import dataclass


class CronSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class FieldSpec:
    name: str
    lo: int
    hi: int


MINUTE = FieldSpec("minute", 0, 59)
HOUR = FieldSpec("hour", 0, 23)
DAY = FieldSpec("day of month", 1, 31)
MONTH = FieldSpec("month", 1, 12)
WEEKDAY = FieldSpec("day of week", 0, 6)

ALIASES = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
    "sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
}


def _number(token: str, spec: FieldSpec) -> int:
    token = token.strip().lower()
    if token in ALIASES:
        value = ALIASES[token]
    elif token.isdigit():
        value = int(token)
    else:
        raise CronSyntaxError(f"{spec.name}: {token!r} is not a number")
    if spec is WEEKDAY and value == 7:
        value = 0
    if not spec.lo <= value <= spec.hi:
        raise CronSyntaxError(f"{spec.name}: {value} is outside {spec.lo}-{spec.hi}")
    return value


def _part(part: str, spec: FieldSpec) -> set[int]:
    if part == "*":
        return set(range(spec.lo, spec.hi + 1))
    if "-" in part:
        first, _, last = part.partition("-")
        a, b = _number(first, spec), _number(last, spec)
        if a > b:
            raise CronSyntaxError(f"{spec.name}: range {part!r} is reversed")
        return set(range(a, b + 1))
    return {_number(part, spec)}


def parse_field(expr: str, spec: FieldSpec) -> frozenset[int]:
    if not expr:
        raise CronSyntaxError(f"{spec.name}: empty field")
    values: set[int] = set()
    for part in expr.split(","):
        values |= _part(part, spec)
    return frozenset(values)
