from dataclasses import dataclass
from datetime import datetime, timedelta

from cronlite.fields import DAY, HOUR, MINUTE, MONTH, WEEKDAY, CronSyntaxError, parse_field

MACROS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
}

_SEARCH_LIMIT = timedelta(days=366 * 4)


@dataclass(frozen=True)
class CronSchedule:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    day_restricted: bool
    weekday_restricted: bool

    @classmethod
    def parse(cls, text: str) -> "CronSchedule":
        text = MACROS.get(text.strip(), text)
        parts = text.split()
        if len(parts) != 5:
            raise CronSyntaxError(f"expected 5 fields, got {len(parts)}")
        m, h, dom, mon, dow = parts
        return cls(parse_field(m, MINUTE), parse_field(h, HOUR), parse_field(dom, DAY),
                   parse_field(mon, MONTH), parse_field(dow, WEEKDAY), dom != "*", dow != "*")

    def _day_matches(self, when: datetime) -> bool:
        weekday = (when.weekday() + 1) % 7
        dom_ok = when.day in self.days
        dow_ok = weekday in self.weekdays
        if self.day_restricted and self.weekday_restricted:
            return dom_ok or dow_ok
        return dom_ok and dow_ok

    def matches(self, when: datetime) -> bool:
        return (when.minute in self.minutes and when.hour in self.hours
                and when.month in self.months and self._day_matches(when))

    def next_after(self, when: datetime) -> datetime:
        candidate = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = when + _SEARCH_LIMIT
        while candidate <= limit:
            if candidate.month not in self.months or not self._day_matches(candidate):
                candidate = (candidate + timedelta(days=1)).replace(hour=0, minute=0)
                continue
            if candidate.hour not in self.hours:
                candidate = (candidate + timedelta(hours=1)).replace(minute=0)
                continue
            if candidate.minute in self.minutes:
                return candidate
            candidate += timedelta(minutes=1)
        raise ValueError("schedule never fires")

    def upcoming(self, when: datetime, count: int) -> list[datetime]:
        out: list[datetime] = []
        for _ in range(count):
            when = self.next_after(when)
            out.append(when)
        return out
