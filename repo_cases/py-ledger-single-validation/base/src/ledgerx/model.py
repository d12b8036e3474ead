from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Transfer:
    source: str
    target: str
    amount: Decimal
    currency: str
    reference: str


class TransferRejected(ValueError):
    pass
