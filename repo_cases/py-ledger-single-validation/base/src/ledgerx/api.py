from typing import Any

from ledgerx.ledger import Ledger
from ledgerx.model import TransferRejected
from ledgerx.validation import validate_transfer


def handle_transfer(ledger: Ledger, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    try:
        transfer = validate_transfer(payload, ledger.accounts())
        ledger.apply(transfer)
    except TransferRejected as exc:
        return 422, {"error": str(exc)}
    return 201, {"from": transfer.source, "to": transfer.target, "amount": str(transfer.amount),
                 "currency": transfer.currency}
