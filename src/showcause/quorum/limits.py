"""The quorum's time and size limits: a key of the configuration, else the predecessor's environment
variable, else the default."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from showcause.core.errors import QuorumConfigError

__all__ = ["Limits", "read_limits", "skip_local"]

# key in the configuration, environment variable, default
_SPECS = {
    "deadline": ("deadlineMs", "PEER_REVIEW_DEADLINE_MS", 750_000),
    "timeout": ("timeoutMs", "PEER_TIMEOUT_MS", 120_000),
    "max_tokens": ("maxOutputTokens", "PEER_MAX_OUTPUT_TOKENS", 8192),
    "ttl": ("credentialTtlS", "PEER_CREDENTIAL_TTL_S", 3000),
}
SKIP_LOCAL_VARS = ("SHOWCAUSE_SKIP_LOCAL", "PEER_REVIEW_SKIP_LOCAL")


@dataclass(frozen=True)
class Limits:
    deadline_s: float
    timeout_s: float            # per source, retries included, unless the source sets timeoutMs
    max_output_tokens: int
    credential_ttl_s: float
    deadline_field: str         # where the deadline came from, for the error that says it is too short


def _value(data: Mapping[str, Any], env: Mapping[str, str], which: str) -> tuple[int, str]:
    key, var, default = _SPECS[which]
    if key in data:
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise QuorumConfigError(f"{key}: must be a positive integer (got {value!r})")
        return value, key
    raw = env.get(var, "").strip()
    if not raw:
        return default, f"{key} (default; or {var})"
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise QuorumConfigError(f"{var}: must be a positive integer (got {raw!r})")
    return value, var


def read_limits(data: Mapping[str, Any], env: Mapping[str, str]) -> Limits:
    deadline, deadline_field = _value(data, env, "deadline")
    return Limits(deadline_s=deadline / 1000, timeout_s=_value(data, env, "timeout")[0] / 1000,
                  max_output_tokens=_value(data, env, "max_tokens")[0],
                  credential_ttl_s=float(_value(data, env, "ttl")[0]), deadline_field=deadline_field)


def skip_local(env: Mapping[str, str]) -> bool:
    """SHOWCAUSE_SKIP_LOCAL (or the predecessor's PEER_REVIEW_SKIP_LOCAL) set to 1/true/yes/on."""
    return any(env.get(var, "").strip().lower() in ("1", "true", "yes", "on") for var in SKIP_LOCAL_VARS)
