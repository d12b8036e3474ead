from decimal import Decimal


def unit_price(sku: str, catalog: dict[str, Decimal]) -> Decimal:
    return catalog[sku]


def discounted(total: Decimal, percent: int) -> Decimal:
    if not 0 <= percent <= 100:
        raise ValueError("percent must be between 0 and 100")
    return (total * (100 - percent) / 100).quantize(Decimal("0.01"))
