from dataclasses import dataclass, field
from decimal import Decimal

from billing.money import to_cents
from billing.tax import rate_for


@dataclass(frozen=True)
class InvoiceLine:
    description: str
    quantity: int
    unit_price: Decimal
    rate: Decimal

    @property
    def net(self) -> Decimal:
        return to_cents(self.unit_price * self.quantity)

    @property
    def tax(self) -> Decimal:
        return to_cents(self.net * self.rate)

    @property
    def gross(self) -> Decimal:
        return self.net + self.tax


@dataclass
class Invoice:
    number: str
    country: str
    currency: str = "EUR"
    lines: list[InvoiceLine] = field(default_factory=list)

    def add(self, description: str, quantity: int, unit_price: Decimal, category: str = "standard") -> InvoiceLine:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        line = InvoiceLine(description, quantity, unit_price, rate_for(self.country, category))
        self.lines.append(line)
        return line

    @property
    def subtotal(self) -> Decimal:
        return sum((line.net for line in self.lines), Decimal("0"))

    @property
    def tax_total(self) -> Decimal:
        return sum((line.tax for line in self.lines), Decimal("0"))

    @property
    def total(self) -> Decimal:
        return self.subtotal + self.tax_total

    def tax_by_rate(self) -> dict[Decimal, Decimal]:
        out: dict[Decimal, Decimal] = {}
        for line in self.lines:
            out[line.rate] = out.get(line.rate, Decimal("0")) + line.tax
        return out
