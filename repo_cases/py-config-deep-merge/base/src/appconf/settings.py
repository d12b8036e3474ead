from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from appconf.defaults import DEFAULTS
from appconf.sources import ConfigError, load_env, load_file


@dataclass(frozen=True)
class Settings:
    raw: dict[str, Any]

    def get(self, dotted: str) -> Any:
        node: Any = self.raw
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(dotted)
            node = node[part]
        return node

    @property
    def database_url(self) -> str:
        db = self.raw["db"]
        return f"postgresql://{db['host']}:{db['port']}/{db['name']}"


def _merge(*layers: dict[str, Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for layer in layers:
        for section, values in layer.items():
            merged[section] = values
    return merged


def load(path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    layers = [DEFAULTS]
    if path is not None:
        layers.append(load_file(path))
    if environ is not None:
        layers.append(load_env(environ))
    merged = _merge(*layers)
    for section in DEFAULTS:
        if not isinstance(merged.get(section), dict):
            raise ConfigError(f"section {section!r} must be an object")
    return Settings(merged)
