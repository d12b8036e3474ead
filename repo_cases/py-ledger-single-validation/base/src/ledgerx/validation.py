from collections.abc import Container
from decimal import Decimal, InvalidOperation
from typing import Any

from ledgerx.currency import MINOR_UNITS, quantum
from ledgerx.model import Transfer, TransferRejected


def validate_transfer(payload: dict[str, Any], accounts: Container[str]) -> Transfer:
    try:
        source, target = str(payload["from"]), str(payload["to"])
        currency = str(payload["currency"]).upper()
        amount = Decimal(str(payload["amount"]))
    except (KeyError, InvalidOperation) as exc:
        raise TransferRejected(f"malformed transfer: {exc!r}") from None
    if currency not in MINOR_UNITS:
        raise TransferRejected(f"unsupported currency {currency}")
    if not amount.is_finite() or amount <= 0:
        raise TransferRejected("amount must be positive")
    if amount != amount.quantize(quantum(currency)):
        raise TransferRejected(f"{currency} amounts have at most {MINOR_UNITS[currency]} decimals")
    if source == target:
        raise TransferRejected("source and target are the same account")
    for account in (source, target):
        if account not in accounts:
            raise TransferRejected(f"unknown account {account}")
    reference = str(payload.get("reference", ""))[:140]
    return Transfer(source, target, amount, currency, reference)
