from billing.invoice import Invoice, InvoiceLine
from billing.money import to_cents

__all__ = ["Invoice", "InvoiceLine", "to_cents"]
