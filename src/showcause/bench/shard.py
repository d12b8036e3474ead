"""`--shard I/N`: a stable slice of a bench's planned records.

A record belongs to the shard its identity (case, mode, model, run) hashes to, never to its position in
the plan: adding a case or a model moves no other record between shards, and every machine of a matrix
computes the same slices from the same plan with no coordination.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from showcause.core.errors import InputError

__all__ = ["Shard", "in_shard", "parse_shard", "plan_digest"]

Shard = tuple[int, int]   # (index from 1, count)
_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str | None) -> Shard | None:
    """`"2/4"` -> (2, 4); None for no sharding; InputError for anything but 1 <= I <= N."""
    if text is None:
        return None
    m = _SPEC.match(text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise InputError(f"--shard {text!r}: expected I/N with 1 <= I <= N (e.g. 1/4)")
    return int(m.group(1)), int(m.group(2))


def _bucket(key: Sequence[Any], count: int) -> int:
    digest = hashlib.sha256(json.dumps(list(key), separators=(",", ":")).encode()).hexdigest()
    return int(digest[:16], 16) % count


def in_shard(key: Sequence[Any], shard: Shard | None) -> bool:
    """Whether the record `key` (case, mode, model, run) is in `shard` (every record is when unsharded)."""
    return shard is None or _bucket(key, shard[1]) == shard[0] - 1


def plan_digest(keys: Sequence[Sequence[Any]]) -> str:
    """One hash of a whole plan, in order: shards of one bench carry the same."""
    return hashlib.sha256(json.dumps([list(k) for k in keys], separators=(",", ":")).encode()).hexdigest()[:32]
