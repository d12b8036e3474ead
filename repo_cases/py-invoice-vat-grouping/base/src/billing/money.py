from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def to_cents(amount: Decimal) -> Decimal:
    """Round a monetary amount to whole cents, half away from zero."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def parse_amount(text: str) -> Decimal:
    cleaned = text.strip().replace(",", "")
    if not cleaned:
        raise ValueError("empty amount")
    value = Decimal(cleaned)
    if value != value.quantize(CENT):
        raise ValueError(f"amount {text!r} has more than two decimals")
    return value


def format_amount(amount: Decimal, currency: str) -> str:
    sign = "-" if amount < 0 else ""
    return f"{sign}{abs(amount):,.2f} {currency}"
