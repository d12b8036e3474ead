"""The blindness check: how much of the proposal a blind phase would already read in its own inputs.

A blind phase is worthless if the caller pasted the proposal into the fields it sees. The check is
lexical: words are runs of Unicode letters, digits and `_` after NFKC normalization and case folding
(so full-width letters or capitals do not hide a copy); the score is the share of the proposal's word
n-grams (n = 5, or the proposal's word count when it is shorter) that also occur in a blind field.
N-grams are taken per field and never across a field boundary, so two fields that each end and begin
with a few words of the proposal do not make up a copied sequence between them.

At or above the leak threshold a blind mode refuses before any model call (`BLINDNESS_LEAK`); at or
above the warning threshold (never above the leak threshold) the result records a warning. A reworded
proposal is not detected: the check protects a caller who wants a blind review, not against one who
wants to defeat it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from showcause.core.errors import BlindnessLeak, InputError
from showcause.policy import ReviewSection

__all__ = ["DEFAULT_LEAK", "DEFAULT_WARN", "SHINGLE", "BlindnessCheck", "Thresholds",
           "check_blindness", "thresholds", "words"]

SHINGLE = 5
# The policy model's `[review]` defaults (policy/model.py), defined there only.
DEFAULT_WARN = ReviewSection().blindness_warn
DEFAULT_LEAK = ReviewSection().blindness_leak
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Thresholds:
    """Warning and leak thresholds (shares of the proposal's n-grams, 0 to 1)."""

    warn: float = DEFAULT_WARN
    leak: float = DEFAULT_LEAK

    def __post_init__(self) -> None:
        for name, value in (("warn", self.warn), ("leak", self.leak)):
            if not 0.0 <= value <= 1.0:
                raise InputError(f"blindness {name} threshold must be between 0 and 1, got {value:g}")
        if self.leak <= 0.0:
            raise InputError("blindness leak threshold must be above 0 (0 would refuse every review)")

    @property
    def effective_warn(self) -> float:
        return min(self.warn, self.leak)


def thresholds(warn: float | None = None, leak: float | None = None, defaults: Thresholds | None = None) -> Thresholds:
    """``defaults`` (the policy's, or the built-in ones) with optional overrides (command-line flags) applied;
    out-of-range values are an InputError."""
    base = defaults or Thresholds()
    return Thresholds(base.warn if warn is None else warn, base.leak if leak is None else leak)


def words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _shingles(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)} if n > 0 else set()


@dataclass(frozen=True)
class BlindnessCheck:
    score: float          # 0 to 1: share of the proposal's n-grams found in the blind fields
    n: int                # the n-gram size used
    shared: int           # proposal n-grams found in a blind field
    total: int            # distinct proposal n-grams
    thresholds: Thresholds

    @property
    def warning(self) -> bool:
        return self.total > 0 and self.score >= self.thresholds.effective_warn

    @property
    def leak(self) -> bool:
        return self.total > 0 and self.score >= self.thresholds.leak

    def to_meta(self) -> dict[str, Any]:
        return {"score": round(self.score, 4), "n": self.n, "shared": self.shared, "total": self.total,
                "warn_threshold": self.thresholds.effective_warn, "leak_threshold": self.thresholds.leak,
                "warning": self.warning}

    def refuse_if_leaked(self, what: str) -> None:
        """Raise BLINDNESS_LEAK (with this check in the error's meta) when the score reaches the leak threshold."""
        if self.leak:
            err = BlindnessLeak(
                f"{self.score:.0%} of the {what}'s {self.n}-word sequences ({self.shared} of {self.total}) already "
                f"appear in the fields the blind phase reads (leak threshold {self.thresholds.leak:.0%}); remove "
                f"the {what} from them, or use a mode that is not blind")
            err.meta.blindness = self.to_meta()
            raise err


def check_blindness(proposal: str, blind_fields: Iterable[str], thresholds: Thresholds | None = None) -> BlindnessCheck:
    """Containment of the proposal's word n-grams in the blind fields, each field shingled on its own."""
    thresholds = thresholds or Thresholds()
    tokens = words(proposal)
    n = min(SHINGLE, len(tokens))
    mine = _shingles(tokens, n)
    seen: set[tuple[str, ...]] = set()
    for text in blind_fields:
        seen |= _shingles(words(text), n)
    shared = len(mine & seen)
    score = shared / len(mine) if mine else 0.0
    return BlindnessCheck(score, n, shared, len(mine), thresholds)
