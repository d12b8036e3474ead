from typing import Any

DEFAULTS: dict[str, Any] = {
    "db": {"host": "localhost", "port": 5432, "name": "app", "pool_size": 5},
    "http": {"bind": "127.0.0.1", "port": 8080, "workers": 2},
    "log": {"level": "INFO", "json": False},
}
