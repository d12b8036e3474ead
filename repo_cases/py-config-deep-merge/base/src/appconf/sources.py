import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    pass


def load_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: not found") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be an object")
    return data


def _coerce(raw: str) -> Any:
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if raw.lstrip("-").isdigit():
        return int(raw)
    return raw


def load_env(environ: Mapping[str, str], prefix: str = "APP_") -> dict[str, Any]:
    """APP_DB__PORT=6543 -> {"db": {"port": 6543}}."""
    out: dict[str, Any] = {}
    for key, raw in environ.items():
        if not key.startswith(prefix):
            continue
        path = [p.lower() for p in key[len(prefix):].split("__") if p]
        if len(path) < 2:
            continue
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = _coerce(raw)
    return out
