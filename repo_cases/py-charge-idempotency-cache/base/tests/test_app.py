import sqlite3

from payments.app import PaymentsApp
from payments.gateway import FakeGateway


def test_post_charge_statuses() -> None:
    app = PaymentsApp(sqlite3.connect(":memory:"), FakeGateway())
    ok = app.post_charge({"Idempotency-Key": "k-00000001"}, {"card": "tok_visa", "amount": 500, "currency": "USD"})
    assert ok[0] == 200
    declined = app.post_charge({"Idempotency-Key": "k-00000002"},
                               {"card": "tok_declined", "amount": 500, "currency": "USD"})
    assert declined[0] == 402
    bad = app.post_charge({}, {"card": "tok_visa", "amount": 500, "currency": "USD"})
    assert bad[0] == 400
