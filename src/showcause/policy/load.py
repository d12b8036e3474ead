# pyright: strict
"""Loading the policy: the defaults file `sandbox/policy.toml`, then trusted overrides.

The model, its defaults and its sections are `showcause.policy.model`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from showcause.core import tomlsafe
from showcause.core.errors import InputError
from showcause.policy.model import SAFE_LEVELS, SECTIONS, Policy, Tighten, tightening, users_own

__all__ = ["FOREIGN_TABLES", "default_policy_path", "load_policy", "tighter_only"]

# Top-level tables of a --config file that are not the sandbox policy's: the policy loader leaves them to
# their readers (`[quorum]`: the sources of `showcause ask` and `review --mode quorum`, docs/quorum.md).
FOREIGN_TABLES = ("quorum",)


def _tighter(rule: Tighten, old: Any, new: Any) -> bool:
    if rule == "never":
        return False
    if rule == "any":
        return True
    if rule == "subset":
        return set(new) <= set(old)
    if rule == "safe level":
        return new in SAFE_LEVELS   # naming one level that hides the host is the only change allowed
    return new > old if rule == "higher" else new < old


def tighter_only(loose: Policy, strict: Policy, origin: str) -> None:
    """Refuse an override that loosens any limit (a repository's own config may only tighten)."""
    for section, model in SECTIONS.items():
        before, after = getattr(loose, section), getattr(strict, section)
        for name, field in model.model_fields.items():
            old, new = getattr(before, name), getattr(after, name)
            if old != new and tightening(field) == "never":
                why, instead = users_own(field)
                raise InputError(f"{origin}: [{section}] {name} may not be set by the repository: {why} (use "
                                 f"{instead.strip('`')} or your own --config)")
            if old != new and not _tighter(tightening(field), old, new):
                raise InputError(f"{origin}: {name} may only be tightened by the repository ({old!r} -> {new!r})")


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


def load_policy(*overrides: Path | Mapping[str, Any]) -> Policy:
    """Defaults from policy.toml, then each override in order (a file path or a parsed document).

    An override document holds the sections at top level (`[process]`) or under a `[sandbox]` table
    (`[sandbox.process]`); every key goes in its section.
    """
    path = default_policy_path()
    policy = Policy().merged(_read_toml(path), str(path))
    for item in overrides:
        doc = _read_toml(item) if isinstance(item, Path) else item
        # Tables other parts of showcause read from the same --config file (the quorum's sources): not policy.
        doc = {k: v for k, v in doc.items() if not (k in FOREIGN_TABLES and isinstance(v, Mapping))}
        origin = str(item) if isinstance(item, Path) else "config"
        table = doc.get("sandbox")
        wrapped: Mapping[str, Any] = table if isinstance(table, Mapping) else {}
        own = SECTIONS["sandbox"].model_fields
        # all() of no keys holds: a document with no [sandbox] table, or an empty one, is merged as it is.
        if not all(k in own and not isinstance(v, Mapping) for k, v in wrapped.items()):
            # Every section under one [sandbox] table; the keys of the section named `sandbox` stay its own.
            mine = {k: v for k, v in wrapped.items() if k in own and not isinstance(v, Mapping)}
            sections = {k: v for k, v in wrapped.items() if k not in mine}
            policy = policy.merged({**sections, **({"sandbox": mine} if mine else {})}, origin, table="sandbox")
        else:
            policy = policy.merged(doc, origin)
    return policy
