from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from statements.model import Transaction


def monthly_totals(transactions: Iterable[Transaction]) -> dict[str, tuple[Decimal, Decimal]]:
    """'YYYY-MM' -> (income, spending), spending as a positive number."""
    totals: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal("0"), Decimal("0")])
    for t in transactions:
        bucket = totals[t.booked.strftime("%Y-%m")]
        if t.amount >= 0:
            bucket[0] += t.amount
        else:
            bucket[1] -= t.amount
    return {month: (v[0], v[1]) for month, v in sorted(totals.items())}
