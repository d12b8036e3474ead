from decimal import Decimal

from billing.invoice import Invoice
from billing.render import render_text


def test_render_lists_lines_and_total() -> None:
    inv = Invoice("7", "FR")
    inv.add("Consulting", 2, Decimal("100.00"))
    text = render_text(inv)
    assert text.splitlines()[0] == "Invoice 7"
    assert "Consulting" in text
    assert text.splitlines()[-1].endswith("240.00 EUR")
    assert "VAT 20%" in text
