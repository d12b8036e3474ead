import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from statements.dates import parse_date
from statements.model import Transaction


def parse_amount(text: str, decimal_comma: bool) -> Decimal:
    text = text.strip().replace(" ", "")
    if decimal_comma:
        text = text.replace(".", "").replace(",", ".")
    else:
        text = text.replace(",", "")
    return Decimal(text)


@dataclass(frozen=True)
class BankFormat:
    name: str
    delimiter: str
    date_order: str
    decimal_comma: bool
    columns: tuple[str, str, str, str]  # date, amount, counterparty, purpose


FORMATS = {
    "sparkasse": BankFormat("sparkasse", ";", "dmy", True, ("Buchungstag", "Betrag", "Beguenstigter", "Verwendungszweck")),
    "chase": BankFormat("chase", ",", "mdy", False, ("Posting Date", "Amount", "Description", "Details")),
}


class Importer:
    """Reads one bank's CSV export.

    Day-first dates used to go through parse_legacy_date(); every format now declares its date order
    and is parsed with parse_date().
    """

    def __init__(self, fmt: BankFormat) -> None:
        self.fmt = fmt

    def read(self, text: str) -> Iterator[Transaction]:
        reader = csv.DictReader(io.StringIO(text), delimiter=self.fmt.delimiter)
        c_date, c_amount, c_party, c_purpose = self.fmt.columns
        for row in reader:
            yield Transaction(
                booked=parse_date(row[c_date], self.fmt.date_order),
                amount=parse_amount(row[c_amount], self.fmt.decimal_comma),
                counterparty=row[c_party].strip(),
                purpose=row[c_purpose].strip(),
            )
