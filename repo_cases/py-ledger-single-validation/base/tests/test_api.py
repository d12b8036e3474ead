from decimal import Decimal

from ledgerx.api import handle_transfer
from ledgerx.ledger import Ledger


def test_created_and_rejected() -> None:
    lg = Ledger({("alice", "EUR"): Decimal("10"), ("bob", "EUR"): Decimal("0")})
    status, body = handle_transfer(lg, {"from": "alice", "to": "bob", "amount": "2.50", "currency": "EUR"})
    assert status == 201 and body["amount"] == "2.50"
    status, body = handle_transfer(lg, {"from": "alice", "to": "bob", "amount": "20", "currency": "EUR"})
    assert status == 422 and "insufficient" in body["error"]
