"""The quorum configuration: the predecessor's JSON file unchanged, or a `[quorum]` table of a TOML file.

Every check runs at load time and a failure is QUORUM_CONFIG_INVALID (exit 2) naming the field. What
only weakens a quorum (a tier that can never win on its own, an unknown key) is a warning, not an error.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from showcause.core import tomlsafe
from showcause.core.errors import QuorumConfigError
from showcause.quorum.limits import Limits, read_limits

__all__ = ["RESERVED_NAME", "QuorumConfig", "Source", "load_config", "parse_config"]

RESERVED_NAME = "caller"   # the arbiter's rating channel for the caller's own answer
_THRESHOLD_KEY = re.compile(r"^(tier)?([0-9]+)$")
_TOP_KEYS = {"thresholds", "arbiter", "sources", "deadlineMs", "timeoutMs", "maxOutputTokens", "credentialTtlS"}
_SOURCE_KEYS = {"name", "apiType", "baseUrl", "model", "apiKeyEnv", "apiKeyCommand", "weight", "tier", "local",
                "jsonMode", "timeoutMs", "maxOutputTokens"}


@dataclass(frozen=True)
class Source:
    """One configured peer. Holds the name of a key variable or a key command, never a key."""

    name: str
    api_type: Literal["openai", "anthropic"]
    base_url: str
    model: str
    api_key_env: str | None
    api_key_command: str | None
    weight: int
    tier: int
    local: bool
    json_mode: bool
    timeout_s: float
    max_output_tokens: int


@dataclass(frozen=True)
class QuorumConfig:
    thresholds: Mapping[int, int]
    arbiter: str
    sources: tuple[Source, ...]
    limits: Limits
    warnings: tuple[str, ...]

    @property
    def tiers(self) -> list[int]:
        return sorted({s.tier for s in self.sources})

    def source(self, name: str) -> Source | None:
        return next((s for s in self.sources if s.name == name), None)

    @property
    def arbiter_source(self) -> Source:
        found = self.source(self.arbiter)
        assert found is not None   # checked at load time
        return found


def load_config(path: Path, *, env: Mapping[str, str] | None = None) -> QuorumConfig:
    """A `.toml` file's `[quorum]` table, else the file as the predecessor's JSON."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise QuorumConfigError(f"{path}: cannot read the quorum configuration: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise QuorumConfigError(f"{path}: the quorum configuration is not UTF-8 text") from None
    data: Any
    if path.suffix.lower() == ".toml":
        try:
            data = tomlsafe.loads(text).get("quorum")
        except ValueError as exc:
            raise QuorumConfigError(f"{path}: not valid TOML: {exc}") from None
        if data is None:
            raise QuorumConfigError(f"{path}: no [quorum] table")
    else:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise QuorumConfigError(f"{path}: not valid JSON: {exc}") from None
    return parse_config(data, env=os.environ if env is None else env, where=str(path))


def parse_config(data: Any, *, env: Mapping[str, str], where: str = "quorum") -> QuorumConfig:
    if not isinstance(data, dict):
        raise QuorumConfigError(f"{where}: the quorum configuration must be an object")
    warnings = [f"{where}: unknown key {key!r} ignored" for key in sorted(set(data) - _TOP_KEYS)]
    limits = read_limits(data, env)
    thresholds = _thresholds(data.get("thresholds"))
    raw_sources = data.get("sources")
    if not isinstance(raw_sources, list) or not raw_sources:
        raise QuorumConfigError("sources: must be a non-empty array of sources")
    sources = tuple(_source(item, i, limits, warnings) for i, item in enumerate(raw_sources))
    _check_names(sources, thresholds)
    arbiter = data.get("arbiter")
    if not isinstance(arbiter, str) or not arbiter:
        raise QuorumConfigError("arbiter: must name one of the sources")
    if arbiter not in {s.name for s in sources}:
        raise QuorumConfigError(f"arbiter: {arbiter!r} is not the name of a source")
    config = QuorumConfig(thresholds, arbiter, sources, limits, ())
    _check_reachable(config, warnings)
    _check_deadline(config)
    return QuorumConfig(thresholds, arbiter, sources, limits, tuple(warnings))


def _thresholds(raw: Any) -> dict[int, int]:
    if not isinstance(raw, dict) or not raw:
        raise QuorumConfigError('thresholds: must be an object of tier weights, e.g. {"tier1": 2, "tier2": 4}')
    out: dict[int, int] = {}
    for key, value in raw.items():
        match = _THRESHOLD_KEY.match(str(key))
        if match is None:
            raise QuorumConfigError(f"thresholds.{key}: a key is a tier: \"tier1\" or \"1\"")
        tier = int(match.group(2))
        if tier in out:
            raise QuorumConfigError(f"thresholds.{key}: tier {tier} has two thresholds")
        out[tier] = _positive_int(value, f"thresholds.{key}")
    return out


def _positive_int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise QuorumConfigError(f"{field}: must be a positive integer (got {json.dumps(value)})")
    return value


def _text(item: dict[str, Any], key: str, field: str, *, required: bool = True) -> str | None:
    value = item.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise QuorumConfigError(f"{field}.{key}: must be a non-empty string")
    return value


def _flag(item: dict[str, Any], key: str, field: str) -> bool:
    value = item.get(key, False)
    if not isinstance(value, bool):
        raise QuorumConfigError(f"{field}.{key}: must be true or false")
    return value


def _source(item: Any, index: int, limits: Limits, warnings: list[str]) -> Source:
    field = f"sources[{index}]"
    if not isinstance(item, dict):
        raise QuorumConfigError(f"{field}: must be an object")
    name = _text(item, "name", field) or ""
    field = f"sources[{index}] ({name})"
    warnings += [f"{field}: unknown key {key!r} ignored" for key in sorted(set(item) - _SOURCE_KEYS)]
    api_type = item.get("apiType")
    if api_type not in ("openai", "anthropic"):
        raise QuorumConfigError(f"{field}.apiType: must be \"openai\" or \"anthropic\"")
    base_url = _text(item, "baseUrl", field) or ""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise QuorumConfigError(f"{field}.baseUrl: must be an http(s) URL (got {base_url!r})")
    env_name = _text(item, "apiKeyEnv", field, required=False)
    command = _text(item, "apiKeyCommand", field, required=False)
    if (env_name is None) == (command is None):
        raise QuorumConfigError(f"{field}: give exactly one of apiKeyEnv and apiKeyCommand")
    json_mode = _flag(item, "jsonMode", field)
    if json_mode and api_type == "anthropic":
        raise QuorumConfigError(f"{field}.jsonMode: only OpenAI-compatible sources take it (apiType is anthropic)")
    timeout_ms = item.get("timeoutMs")
    max_tokens = item.get("maxOutputTokens")
    return Source(
        name=name, api_type=api_type, base_url=base_url.rstrip("/"), model=_text(item, "model", field) or "",
        api_key_env=env_name, api_key_command=command, weight=_positive_int(item.get("weight"), f"{field}.weight"),
        tier=_positive_int(item.get("tier"), f"{field}.tier"), local=_flag(item, "local", field),
        json_mode=json_mode,
        timeout_s=limits.timeout_s if timeout_ms is None else _positive_int(timeout_ms, f"{field}.timeoutMs") / 1000,
        max_output_tokens=limits.max_output_tokens if max_tokens is None
        else _positive_int(max_tokens, f"{field}.maxOutputTokens"),
    )


def _check_names(sources: tuple[Source, ...], thresholds: Mapping[int, int]) -> None:
    seen: set[str] = set()
    for index, source in enumerate(sources):
        if source.name == RESERVED_NAME:
            raise QuorumConfigError(f"sources[{index}].name: {RESERVED_NAME!r} is reserved for the caller's answer")
        if source.name in seen:
            raise QuorumConfigError(f"sources[{index}].name: {source.name!r} names two sources")
        seen.add(source.name)
        if source.tier not in thresholds:
            raise QuorumConfigError(f"sources[{index}] ({source.name}).tier: tier {source.tier} has no threshold "
                                    f"(add thresholds.tier{source.tier})")


def _check_reachable(config: QuorumConfig, warnings: list[str]) -> None:
    """Every threshold must be reachable by the sources at or below its tier; a lower tier that cannot win a
    default call alone (the top threshold) is only overhead on such calls: a warning."""
    for tier, required in sorted(config.thresholds.items()):
        weight = sum(s.weight for s in config.sources if s.tier <= tier)
        if weight < required:
            raise QuorumConfigError(f"thresholds.tier{tier}: {required} can never be reached: the sources of tiers "
                                    f"<= {tier} weigh {weight} in all")
    top = max(config.tiers)
    required = config.thresholds[top]
    for tier in config.tiers[:-1]:
        weight = sum(s.weight for s in config.sources if s.tier <= tier)
        if weight < required:
            warnings.append(f"tier {tier} can never win a default call: tiers <= {tier} weigh {weight}, "
                            f"below thresholds.tier{top} = {required} (its sources are billed, then escalated)")


def _check_deadline(config: QuorumConfig) -> None:
    """The deadline must fit every tier's wave (its slowest source) plus one arbiter evaluation after it."""
    arbiter_s = config.arbiter_source.timeout_s
    need = sum(max(s.timeout_s for s in config.sources if s.tier == tier) + arbiter_s for tier in config.tiers)
    if config.limits.deadline_s + 1e-9 < need:
        raise QuorumConfigError(
            f"{config.limits.deadline_field}: {config.limits.deadline_s * 1000:g} ms cannot fit {len(config.tiers)} "
            f"sequential tier waves plus their arbiter evaluations ({need * 1000:g} ms): raise it or lower "
            "timeoutMs")
