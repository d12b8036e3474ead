import json
from pathlib import Path

import pytest

from appconf.settings import load
from appconf.sources import ConfigError


def write(tmp_path: Path, data: object) -> Path:
    p = tmp_path / "app.json"
    p.write_text(json.dumps(data))
    return p


def test_defaults_only() -> None:
    s = load()
    assert s.get("http.port") == 8080
    assert s.database_url == "postgresql://localhost:5432/app"


def test_file_section_replaces_defaults(tmp_path: Path) -> None:
    s = load(write(tmp_path, {"db": {"host": "db1", "port": 5433, "name": "prod", "pool_size": 20}}))
    assert s.database_url == "postgresql://db1:5433/prod"


def test_env_wins_over_file(tmp_path: Path) -> None:
    s = load(write(tmp_path, {"log": {"level": "DEBUG", "json": False}}), {"APP_LOG__LEVEL": "WARNING"})
    assert s.get("log.level") == "WARNING"


def test_each_load_starts_from_defaults(tmp_path: Path) -> None:
    load(write(tmp_path, {"http": {"bind": "0.0.0.0", "port": 80, "workers": 8}}))
    assert load().get("http.port") == 8080
    assert load().get("http.workers") == 2


def test_section_must_be_object(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load(write(tmp_path, {"db": "postgres://x"}))


def test_unknown_key() -> None:
    with pytest.raises(KeyError):
        load().get("db.user")
