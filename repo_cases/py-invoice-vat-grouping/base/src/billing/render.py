from billing.invoice import Invoice
from billing.money import format_amount


def render_text(invoice: Invoice) -> str:
    cur = invoice.currency
    rows = [f"Invoice {invoice.number}"]
    for line in invoice.lines:
        rows.append(f"{line.quantity:>3} x {line.description:<30} {format_amount(line.gross, cur):>14}")
    rows.append(f"{'Net':<36} {format_amount(invoice.subtotal, cur):>14}")
    for rate, amount in sorted(invoice.tax_by_rate().items()):
        rows.append(f"{'VAT ' + format((rate * 100).normalize(), 'f') + '%':<36} {format_amount(amount, cur):>14}")
    rows.append(f"{'Total':<36} {format_amount(invoice.total, cur):>14}")
    return "\n".join(rows)
