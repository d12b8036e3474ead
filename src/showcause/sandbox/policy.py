"""Sandbox policy: caps and limits, loaded from `sandbox/policy.toml` plus trusted overrides."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from showcause.core import tomlsafe
from showcause.core.errors import InputError
from showcause.sandbox.levels import LEVELS, SAFE_LEVELS

__all__ = ["Policy", "default_policy_path", "load_policy", "tighter_only"]

# Shares (0 to 1) rather than positive limits; a leak threshold of 0 would refuse every review.
_SHARES = {"blindness_warn": 0.0, "blindness_leak": 1e-9}
# Counts for which 0 means something (not a limit of 0).
_ZERO_OK = frozenset({"symbol_worker_min_files"})
# Larger is stricter: fewer processes on the host.
_HIGHER_IS_TIGHTER = frozenset({"symbol_worker_min_files"})


@dataclass(frozen=True)
class Policy:
    max_file_bytes: int = 2_000_000
    max_read_lines: int = 200
    max_line_chars: int = 400
    max_chars: int = 6000
    max_search_hits: int = 40
    max_list_files: int = 200
    max_symbol_hits: int = 60
    search_timeout_s: float = 10.0
    max_pattern_chars: int = 1000
    # Analysis in showcause's own process (showcause/core/analysis_budget.py): a file cap, and a time budget per review.
    max_analysis_bytes: int = 4_000_000
    analysis_budget_s: float = 30.0
    timeout_s: float = 60.0
    kill_grace_s: float = 2.0
    cpu_s: int = 120
    test_memory_mb: int = 2048
    typecheck_memory_mb: int = 4096
    file_size_mb: int = 64
    open_files: int = 1024
    max_processes: int = 256
    max_output_bytes: int = 1_000_000
    test_timeout_s: int = 30
    env_allow: tuple[str, ...] = ("LANG", "LC_ALL", "TZ", "TERM")
    discover: tuple[str, ...] = field(default_factory=tuple)
    # "auto": the first level that hides the host (sandbox/levels.py); "none" only when the user names it.
    isolation: str = "auto"
    # The review budget of evidence_gate and the one-pass baselines (judges/loop.py Budget, docs/modes.md).
    max_tool_calls: int = 10
    max_review_tokens: int = 60_000
    max_completion_tokens: int = 8_000
    review_timeout_s: float = 300.0
    max_turns: int = 16
    # blind_first on a repository change: two phases share one larger budget (tool calls and completion
    # tokens per call as above).
    blind_max_review_tokens: int = 100_000
    blind_review_timeout_s: float = 420.0
    blind_max_turns: int = 24
    # Thresholds of the blindness check of blind modes (judges/blindness.py): lower is stricter.
    blindness_warn: float = 0.15
    blindness_leak: float = 0.5
    # Files of a symbol-index load extracted in showcause's own process before worker processes start
    # (symbols/pool.py); 0 starts one for every load, whatever the host's idle cores (tests use it).
    symbol_worker_min_files: int = 500

    def merged(self, data: dict[str, Any], origin: str) -> Policy:
        """Return a copy with the keys of a policy TOML document applied (sections are flattened)."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for section, body in data.items():
            items = body.items() if isinstance(body, dict) else [(section, body)]
            for key, value in items:
                if key not in known:
                    raise InputError(f"{origin}: unknown sandbox policy key {key!r}")
                changes[key] = _checked(key, getattr(self, key), value, origin)
        if changes.get("isolation", self.isolation) not in LEVELS:
            raise InputError(f"{origin}: isolation must be {', '.join(LEVELS[:-1])} or {LEVELS[-1]}")
        return replace(self, **changes)


def tighter_only(loose: Policy, strict: Policy, origin: str) -> None:
    """Refuse an override that loosens any limit (a repository's own config may only tighten)."""
    for f in fields(loose):
        old, new = getattr(loose, f.name), getattr(strict, f.name)
        if old == new or f.name == "discover":
            continue
        if f.name == "env_allow":
            ok = set(new) <= set(old)
        elif f.name == "isolation":
            ok = new in SAFE_LEVELS   # naming one level that hides the host is the only change allowed
        elif f.name in _HIGHER_IS_TIGHTER:
            ok = new > old
        else:
            ok = new < old
        if not ok:
            raise InputError(f"{origin}: {f.name} may only be tightened by the repository ({old!r} -> {new!r})")


def _checked(key: str, current: object, value: object, origin: str) -> object:
    """The override value for `key`, of the same kind as the default, or an InputError."""
    if isinstance(current, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{origin}: {key} must be a list of strings")
        return tuple(value)
    if isinstance(current, str):
        if not isinstance(value, str):
            raise InputError(f"{origin}: {key} must be a string")
        return value
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if not numeric or (isinstance(current, int) and not isinstance(value, int)):
        raise InputError(f"{origin}: {key} must be {'an integer' if isinstance(current, int) else 'a number'}")
    assert isinstance(value, int | float)
    if key in _SHARES:
        if not _SHARES[key] <= value <= 1:
            low = "0" if _SHARES[key] == 0 else "above 0"
            raise InputError(f"{origin}: {key} must be {low} and at most 1, got {value:g}")
    elif key in _ZERO_OK:
        if value < 0:
            raise InputError(f"{origin}: {key} must be 0 or more")
    elif value <= 0:
        raise InputError(f"{origin}: {key} must be positive")
    return float(value) if isinstance(current, float) else value


def default_policy_path() -> Path:
    """The checkout's `sandbox/policy.toml`, or the copy packaged into wheels."""
    here = Path(__file__).resolve()
    checkout = here.parents[3] / "sandbox" / "policy.toml"
    return checkout if checkout.is_file() else here.with_name("policy.toml")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomlsafe.load_file(path)
    except (OSError, ValueError) as exc:   # unreadable, not TOML, or beyond the caps of tomlsafe
        raise InputError(f"cannot read policy {path}: {exc}") from exc


def load_policy(*overrides: Path | dict[str, Any]) -> Policy:
    """Defaults from policy.toml, then each override in order (a file path or a parsed document).

    An override document may hold the keys at top level or under a `[sandbox]` table.
    """
    path = default_policy_path()
    policy = Policy().merged(_read_toml(path), str(path))
    for item in overrides:
        doc = _read_toml(item) if isinstance(item, Path) else item
        origin = str(item) if isinstance(item, Path) else "config"
        doc = doc.get("sandbox", doc) if isinstance(doc.get("sandbox"), dict) else doc
        policy = policy.merged(doc, origin)
    return policy
