from decimal import Decimal

import pytest

from ledgerx.ledger import Ledger
from ledgerx.model import Transfer, TransferRejected


def ledger() -> Ledger:
    return Ledger({("alice", "EUR"): Decimal("100.00"), ("bob", "EUR"): Decimal("0")})


def test_apply_moves_money() -> None:
    lg = ledger()
    lg.apply(Transfer("alice", "bob", Decimal("40.00"), "EUR", "rent"))
    assert lg.balance("alice", "EUR") == Decimal("60.00")
    assert lg.balance("bob", "EUR") == Decimal("40.00")
    assert len(lg.journal) == 1


def test_insufficient_funds() -> None:
    lg = ledger()
    with pytest.raises(TransferRejected):
        lg.apply(Transfer("alice", "bob", Decimal("100.01"), "EUR", ""))
    assert lg.balance("alice", "EUR") == Decimal("100.00")
