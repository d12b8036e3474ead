import pytest

from crm.customers import add_customer
from crm.db import connect, migrate
from crm.orders import lifetime_value, place_order


def test_lifetime_value() -> None:
    conn = connect()
    migrate(conn)
    c = add_customer(conn, "Ada", "ada@example.org")
    place_order(conn, c.id, 1250)
    place_order(conn, c.id, 750)
    assert lifetime_value(conn, c.id) == 2000
    with pytest.raises(ValueError):
        place_order(conn, c.id, 0)
