import csv
import io
import json

from catalog.export import FeedRow


def to_csv(rows: list[FeedRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "title", "price"])
    for row in rows:
        writer.writerow([row.sku, row.title, f"{row.price} {row.currency}"])
    return out.getvalue()


def to_json(rows: list[FeedRow]) -> str:
    return json.dumps([{"id": r.sku, "title": r.title, "price": str(r.price), "currency": r.currency}
                       for r in rows], ensure_ascii=False)
