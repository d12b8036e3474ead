import json
from pathlib import Path

import pytest

from appconf.sources import ConfigError, load_env, load_file


def test_load_env_nests_and_coerces() -> None:
    env = {"APP_DB__PORT": "6543", "APP_LOG__JSON": "true", "HOME": "/root", "APP_X": "ignored"}
    assert load_env(env) == {"db": {"port": 6543}, "log": {"json": True}}


def test_load_file(tmp_path: Path) -> None:
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"http": {"port": 9000}}))
    assert load_file(p) == {"http": {"port": 9000}}


def test_load_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ConfigError):
        load_file(bad)
