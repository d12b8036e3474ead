from decimal import Decimal

import pytest

from ledgerx.model import TransferRejected
from ledgerx.validation import validate_transfer

ACCOUNTS = {"alice", "bob"}


def test_valid_transfer() -> None:
    t = validate_transfer({"from": "alice", "to": "bob", "amount": "12.50", "currency": "eur"}, ACCOUNTS)
    assert t.amount == Decimal("12.50") and t.currency == "EUR"


@pytest.mark.parametrize("payload", [
    {"from": "alice", "to": "bob", "amount": "1.005", "currency": "EUR"},
    {"from": "alice", "to": "bob", "amount": "1.5", "currency": "JPY"},
    {"from": "alice", "to": "bob", "amount": "-1", "currency": "EUR"},
    {"from": "alice", "to": "bob", "amount": "NaN", "currency": "EUR"},
    {"from": "alice", "to": "alice", "amount": "1", "currency": "EUR"},
    {"from": "alice", "to": "carol", "amount": "1", "currency": "EUR"},
    {"from": "alice", "to": "bob", "amount": "1", "currency": "XXX"},
    {"from": "alice", "amount": "1", "currency": "EUR"},
])
def test_rejections(payload: dict[str, str]) -> None:
    with pytest.raises(TransferRejected):
        validate_transfer(payload, ACCOUNTS)


def test_three_decimal_currency() -> None:
    t = validate_transfer({"from": "alice", "to": "bob", "amount": "1.125", "currency": "BHD"}, ACCOUNTS)
    assert t.amount == Decimal("1.125")
