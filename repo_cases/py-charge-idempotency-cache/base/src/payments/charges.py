from dataclasses import dataclass
from typing import Any

from payments.gateway import Declined, Gateway
from payments.idempotency import IdempotencyStore

CURRENCIES = {"EUR", "USD", "GBP"}


@dataclass(frozen=True)
class ChargeRequest:
    idempotency_key: str
    card_token: str
    amount_cents: int
    currency: str


def validate(req: ChargeRequest) -> None:
    if not 8 <= len(req.idempotency_key) <= 64:
        raise ValueError("idempotency key must have 8-64 characters")
    if req.amount_cents <= 0:
        raise ValueError("amount must be positive")
    if req.currency not in CURRENCIES:
        raise ValueError(f"unsupported currency {req.currency}")


def create_charge(req: ChargeRequest, store: IdempotencyStore, gateway: Gateway) -> dict[str, Any]:
    validate(req)
    previous = store.get(req.idempotency_key)
    if previous is not None:
        return {**previous, "replayed": True}
    try:
        charge_id = gateway.charge(req.card_token, req.amount_cents, req.currency)
        response: dict[str, Any] = {"status": "succeeded", "charge_id": charge_id,
                                    "amount_cents": req.amount_cents, "currency": req.currency}
    except Declined as exc:
        response = {"status": "declined", "reason": str(exc)}
    store.put(req.idempotency_key, response)
    return {**response, "replayed": False}
