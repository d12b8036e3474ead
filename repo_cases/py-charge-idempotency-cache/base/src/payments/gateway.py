import itertools
from dataclasses import dataclass, field
from typing import Protocol


class Gateway(Protocol):
    def charge(self, card_token: str, amount_cents: int, currency: str) -> str: ...


class Declined(Exception):
    pass


@dataclass
class FakeGateway:
    charges: list[tuple[str, int, str]] = field(default_factory=list)
    _ids: "itertools.count[int]" = field(default_factory=lambda: itertools.count(1))

    def charge(self, card_token: str, amount_cents: int, currency: str) -> str:
        if card_token == "tok_declined":
            raise Declined("card declined")
        self.charges.append((card_token, amount_cents, currency))
        return f"ch_{next(self._ids)}"
