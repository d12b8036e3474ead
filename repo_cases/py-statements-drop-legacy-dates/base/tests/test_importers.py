from datetime import date
from decimal import Decimal

from statements.importers import FORMATS, Importer, parse_amount

SPARKASSE = "Buchungstag;Betrag;Beguenstigter;Verwendungszweck\n03.01.2024;-1.234,56;Miete GmbH;Januar\n"
CHASE = "Posting Date,Amount,Description,Details\n01/05/2024,2500.00,ACME PAYROLL,salary\n"


def test_parse_amount() -> None:
    assert parse_amount("-1.234,56", True) == Decimal("-1234.56")
    assert parse_amount("1,234.56", False) == Decimal("1234.56")


def test_sparkasse() -> None:
    [t] = Importer(FORMATS["sparkasse"]).read(SPARKASSE)
    assert t.booked == date(2024, 1, 3) and t.amount == Decimal("-1234.56")


def test_chase() -> None:
    [t] = Importer(FORMATS["chase"]).read(CHASE)
    assert t.booked == date(2024, 1, 5) and t.counterparty == "ACME PAYROLL"
