from decimal import Decimal

from store.pricing import discounted, unit_price


class Cart:
    def __init__(self, catalog: dict[str, Decimal]) -> None:
        self.catalog = catalog
        self.lines: dict[str, int] = {}

    def add(self, sku: str, qty: int = 1) -> None:
        self.lines[sku] = self.lines.get(sku, 0) + qty

    def total(self, discount_percent: int = 0) -> Decimal:
        subtotal = sum((unit_price(s, self.catalog) * q for s, q in self.lines.items()), Decimal("0"))
        return discounted(subtotal, discount_percent)
