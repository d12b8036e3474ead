from datetime import date
from decimal import Decimal

from statements.model import Transaction
from statements.report import monthly_totals


def test_monthly_totals() -> None:
    txs = [Transaction(date(2024, 1, 3), Decimal("-10"), "a", ""), Transaction(date(2024, 1, 9), Decimal("25"), "b", ""),
           Transaction(date(2024, 2, 1), Decimal("-5"), "c", "")]
    assert monthly_totals(txs) == {"2024-01": (Decimal("25"), Decimal("10")), "2024-02": (Decimal("0"), Decimal("5"))}
