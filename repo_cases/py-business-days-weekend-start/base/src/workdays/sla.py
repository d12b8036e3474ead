from datetime import date

from workdays.calendar import add_business_days

SLA_DAYS = {"standard": 5, "priority": 2, "express": 1}


def due_date(received: date, tier: str, country: str = "DE") -> date:
    return add_business_days(received, SLA_DAYS[tier], country)
