from crm.db import connect, migrate


def test_migrate_is_idempotent() -> None:
    conn = connect()
    first = migrate(conn)
    assert first == sorted(first) and first[0].startswith("001_")
    assert migrate(conn) == []


def test_foreign_keys_enforced() -> None:
    conn = connect()
    migrate(conn)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"customers", "orders", "schema_migrations"} <= tables
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
