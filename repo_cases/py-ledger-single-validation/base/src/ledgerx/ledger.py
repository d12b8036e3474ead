from dataclasses import dataclass, field
from decimal import Decimal

from ledgerx.model import Transfer, TransferRejected

_CURRENCIES = {"EUR", "USD", "GBP"}


@dataclass
class Ledger:
    balances: dict[tuple[str, str], Decimal] = field(default_factory=dict)
    journal: list[Transfer] = field(default_factory=list)

    def accounts(self) -> set[str]:
        return {account for account, _ in self.balances}

    def balance(self, account: str, currency: str) -> Decimal:
        return self.balances.get((account, currency), Decimal("0"))

    def _check(self, transfer: Transfer) -> None:
        if transfer.currency not in _CURRENCIES:
            raise TransferRejected(f"unsupported currency {transfer.currency}")
        if transfer.amount <= 0 or transfer.amount != transfer.amount.quantize(Decimal("0.01")):
            raise TransferRejected("amount must be positive with two decimals")
        if transfer.source == transfer.target:
            raise TransferRejected("source and target are the same account")
        if transfer.source not in self.accounts() or transfer.target not in self.accounts():
            raise TransferRejected("unknown account")

    def apply(self, transfer: Transfer) -> None:
        self._check(transfer)
        if self.balance(transfer.source, transfer.currency) < transfer.amount:
            raise TransferRejected("insufficient funds")
        src = (transfer.source, transfer.currency)
        dst = (transfer.target, transfer.currency)
        self.balances[src] = self.balance(*src) - transfer.amount
        self.balances[dst] = self.balance(*dst) + transfer.amount
        self.journal.append(transfer)
