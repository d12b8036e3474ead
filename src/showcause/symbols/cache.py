"""Process-wide caches of extraction results, keyed by ``(language, content digest)``.

Results depend only on the content and the language, so trees that share content (base and head of a
review, or two checkouts) extract each distinct file once.  Two LRUs: the definitions and imports every
index keeps for every file, and the full symbols (references too) of the files a reference lookup needed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from hashlib import blake2b
from typing import TypeVar

from showcause.core.analysis_budget import AnalysisBudget

from .extract import FileDefinitions, FileSymbols, parse_definitions, parse_symbols
from .languages import ParseTimeout

__all__ = [
    "CONTENT_CACHE_SIZE", "cached_definitions", "clear_content_caches", "definitions_for_content", "digest_of",
    "store_definitions", "symbols_for_content", "symbols_within",
]  # fmt: skip

CONTENT_CACHE_SIZE = 50_000

_Key = tuple[str, bytes]
_V = TypeVar("_V")
_lock = threading.Lock()
_definitions: OrderedDict[_Key, FileDefinitions] = OrderedDict()
_symbols: OrderedDict[_Key, FileSymbols] = OrderedDict()


def digest_of(data: bytes) -> bytes:
    return blake2b(data, digest_size=16).digest()


def _get(cache: OrderedDict[_Key, _V], key: _Key) -> _V | None:
    with _lock:
        value = cache.get(key)
        if value is not None:
            cache.move_to_end(key)
        return value


def _put(cache: OrderedDict[_Key, _V], key: _Key, value: _V) -> None:
    with _lock:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > CONTENT_CACHE_SIZE:
            cache.popitem(last=False)


def cached_definitions(language: str, digest: bytes) -> FileDefinitions | None:
    return _get(_definitions, (language, digest))


def store_definitions(language: str, digest: bytes, definitions: FileDefinitions) -> None:
    _put(_definitions, (language, digest), definitions)


def _cached(table: OrderedDict[_Key, _V], data: bytes, language: str, digest: bytes | None,
            parse: Callable[[], _V]) -> _V:
    key = (language, digest if digest is not None else digest_of(data))
    found = _get(table, key)
    if found is None:
        found = parse()
        _put(table, key, found)
    return found


def definitions_for_content(
    data: bytes, language: str, file: str = "", digest: bytes | None = None, seconds: float | None = None
) -> FileDefinitions:
    """The definitions and imports of ``data``, extracted only if the cache does not hold them (``seconds``:
    the parse's time limit, see ``parse_within``; a parse that gives up raises and caches nothing)."""
    return _cached(_definitions, data, language, digest, lambda: parse_definitions(data, language, file, seconds))


def symbols_for_content(
    data: bytes, language: str, file: str = "", digest: bytes | None = None, seconds: float | None = None
) -> FileSymbols:
    """The full symbols (references too) of ``data``, extracted only if the cache does not hold them."""
    return _cached(_symbols, data, language, digest, lambda: parse_symbols(data, language, file, seconds))


def symbols_within(data: bytes, language: str, file: str, budget: AnalysisBudget | None) -> FileSymbols | None:
    """``symbols_for_content`` under ``budget``: None, recorded in the budget, when it ran out or the parse gave
    up (without a budget, only a parse that gave up)."""
    if budget is not None and budget.out_of_time(file):
        return None
    try:
        return symbols_for_content(data, language, file, digest_of(data),
                                   budget.parse_limit(len(data)) if budget is not None else None)
    except ParseTimeout:
        if budget is not None:
            budget.gave_up(file)
        return None


def clear_content_caches() -> None:
    with _lock:
        _definitions.clear()
        _symbols.clear()
