import sqlite3

import pytest

from payments.charges import ChargeRequest, create_charge
from payments.gateway import FakeGateway
from payments.idempotency import SqlIdempotencyStore


def store() -> SqlIdempotencyStore:
    return SqlIdempotencyStore(sqlite3.connect(":memory:"))


def test_retry_with_same_key_does_not_charge_twice() -> None:
    s, gw = store(), FakeGateway()
    req = ChargeRequest("order-1234-a", "tok_visa", 4999, "EUR")
    first = create_charge(req, s, gw)
    second = create_charge(req, s, gw)
    assert first["charge_id"] == second["charge_id"]
    assert second["replayed"] is True
    assert len(gw.charges) == 1


def test_declined_is_remembered() -> None:
    s, gw = store(), FakeGateway()
    req = ChargeRequest("order-9999-b", "tok_declined", 100, "EUR")
    assert create_charge(req, s, gw)["status"] == "declined"
    assert create_charge(req, s, gw)["replayed"] is True


@pytest.mark.parametrize("req", [ChargeRequest("short", "t", 1, "EUR"), ChargeRequest("longenough", "t", 0, "EUR"),
                                 ChargeRequest("longenough", "t", 1, "JPY")])
def test_validation(req: ChargeRequest) -> None:
    with pytest.raises(ValueError):
        create_charge(req, store(), FakeGateway())
