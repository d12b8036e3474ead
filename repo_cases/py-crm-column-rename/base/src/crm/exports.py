import csv
import io
import sqlite3

MAILING_QUERY = """
    SELECT c.fullname, c.email, COALESCE(SUM(o.total_cents), 0) AS spent
    FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
    WHERE c.opted_in = 1
    GROUP BY c.id
    ORDER BY spent DESC
"""


def mailing_list_csv(conn: sqlite3.Connection) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["name", "email", "spent_eur"])
    for name, email, spent in conn.execute(MAILING_QUERY):
        writer.writerow([name, email, f"{spent / 100:.2f}"])
    return out.getvalue()
