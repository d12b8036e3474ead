from decimal import Decimal

RATES: dict[str, dict[str, Decimal]] = {
    "DE": {"standard": Decimal("0.19"), "reduced": Decimal("0.07")},
    "FR": {"standard": Decimal("0.20"), "reduced": Decimal("0.055")},
    "NL": {"standard": Decimal("0.21"), "reduced": Decimal("0.09")},
}


class UnknownRate(KeyError):
    pass


def rate_for(country: str, category: str) -> Decimal:
    try:
        return RATES[country][category]
    except KeyError:
        raise UnknownRate(f"no {category!r} VAT rate for {country!r}") from None
