from dataclasses import dataclass
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class Transaction:
    booked: date
    amount: Decimal
    counterparty: str
    purpose: str
