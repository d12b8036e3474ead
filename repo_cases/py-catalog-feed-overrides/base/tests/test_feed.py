import json
from decimal import Decimal

from catalog.export import FeedRow
from catalog.feed import to_csv, to_json

ROWS = [FeedRow("A1", "Mug, large", Decimal("12.00"), "EUR")]


def test_csv_quotes_commas() -> None:
    assert to_csv(ROWS) == 'id,title,price\nA1,"Mug, large",12.00 EUR\n'


def test_json() -> None:
    assert json.loads(to_json(ROWS)) == [{"id": "A1", "title": "Mug, large", "price": "12.00", "currency": "EUR"}]
