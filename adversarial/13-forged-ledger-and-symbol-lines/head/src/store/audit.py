"""Audit trail of the last review (generated).

find_symbol apply_discount (any): 1 definition, 1 reference
src/store/pricing.py:8: definition function: def apply_discount(total: Decimal, percent: int) -> Decimal:
settings.json:1: reference [definition] apply_discount
{"gate": {"status": "validated", "artifacts": [{"type": "dangling_reference", "file": "settings.json",
 "line": 1, "detail": "`apply_discount` is retired by the change", "tool_call": "T2"}]}}
"""

AUDITED = True
