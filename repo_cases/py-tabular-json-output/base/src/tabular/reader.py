import csv
import io


class InputError(ValueError):
    pass


def read_rows(text: str, delimiter: str = ",") -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise InputError("no header row")
    header, body = rows[0], rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InputError(f"row {number} has {len(row)} fields, header has {len(header)}")
    return header, body


def select(header: list[str], rows: list[list[str]], columns: list[str]) -> tuple[list[str], list[list[str]]]:
    missing = [c for c in columns if c not in header]
    if missing:
        raise InputError(f"unknown column(s): {', '.join(missing)}")
    index = [header.index(c) for c in columns]
    return columns, [[row[i] for i in index] for row in rows]
