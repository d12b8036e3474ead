from pathlib import Path

import pytest

from dbpool.settings import PoolSettings, SettingsError, from_mapping, load

ROOT = Path(__file__).resolve().parents[1]


def test_from_mapping() -> None:
    s = from_mapping({"database": {"dsn": "postgresql://x"}, "pool": {"max_size": 3, "max_conn_age": 60}})
    assert s == PoolSettings("postgresql://x", max_size=3, max_conn_age=60.0)


def test_dsn_required() -> None:
    with pytest.raises(SettingsError):
        from_mapping({"pool": {}})


def test_invalid_sizes() -> None:
    with pytest.raises(SettingsError):
        PoolSettings("d", min_size=5, max_size=2)


@pytest.mark.parametrize("name", ["default.toml", "batch.toml"])
def test_shipped_configs_load(name: str) -> None:
    s = load(ROOT / "config" / name)
    assert s.dsn.startswith("postgresql://")
    assert s.min_size <= s.max_size
