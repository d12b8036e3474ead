def _is_number(cell: str) -> bool:
    try:
        float(cell.replace(",", ""))
    except ValueError:
        return False
    return True


def render_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]
    numeric = [bool(rows) and all(_is_number(row[i]) for row in rows if row[i]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        cells = [cell.rjust(w) if num else cell.ljust(w) for cell, w, num in zip(row, widths, numeric)]
        return " | ".join(cells).rstrip()

    rule = "-+-".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *(fmt(r) for r in rows)]) + "\n"
