import sqlite3

import pytest

from crm.customers import add_customer, get_customer, search_customers
from crm.db import connect, migrate


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = connect()
    migrate(c)
    return c


def test_add_and_get(conn: sqlite3.Connection) -> None:
    c = add_customer(conn, " Grace Hopper ", "Grace@Navy.mil", opted_in=True)
    assert get_customer(conn, c.id) == c
    assert c.email == "grace@navy.mil"


def test_search(conn: sqlite3.Connection) -> None:
    add_customer(conn, "Ada Lovelace", "ada@example.org")
    add_customer(conn, "Alan Turing", "alan@example.org")
    assert [c.fullname for c in search_customers(conn, "ada")] == ["Ada Lovelace"]
    assert len(search_customers(conn, "example.org")) == 2


def test_duplicate_email(conn: sqlite3.Connection) -> None:
    add_customer(conn, "A", "a@example.org")
    with pytest.raises(sqlite3.IntegrityError):
        add_customer(conn, "B", "A@example.org")
