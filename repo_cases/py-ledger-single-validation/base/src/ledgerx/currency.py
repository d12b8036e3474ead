from decimal import Decimal

MINOR_UNITS: dict[str, int] = {"EUR": 2, "USD": 2, "GBP": 2, "JPY": 0, "BHD": 3}


def quantum(currency: str) -> Decimal:
    return Decimal(1).scaleb(-MINOR_UNITS[currency])
