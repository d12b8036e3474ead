import sqlite3
from typing import Any

from payments.charges import ChargeRequest, create_charge
from payments.gateway import Gateway
from payments.idempotency import SqlIdempotencyStore


class PaymentsApp:
    def __init__(self, conn: sqlite3.Connection, gateway: Gateway) -> None:
        self.store = SqlIdempotencyStore(conn)
        self.gateway = gateway

    def post_charge(self, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        key = headers.get("Idempotency-Key", "")
        try:
            req = ChargeRequest(key, str(body["card"]), int(body["amount"]), str(body["currency"]))
            result = create_charge(req, self.store, self.gateway)
        except (KeyError, ValueError) as exc:
            return 400, {"error": str(exc)}
        return (200 if result["status"] == "succeeded" else 402), result
