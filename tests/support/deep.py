"""Inputs nested 100,000 levels deep: without the caps of `jsonsafe` the decoder, pydantic or a walk of the
value would raise RecursionError on each of them."""

from __future__ import annotations

DEEP = 100_000
LISTS = "[" * DEEP + "]" * DEEP                   # valid JSON, 100,000 levels
OBJECTS = '{"a": ' * DEEP + "1" + "}" * DEEP      # the same with objects
OPEN = "[" * DEEP                                  # what a runaway model or a hostile file sends: never closed
NESTED = "nested deeper than 64 levels"           # the refusal every bounded parse gives


def deep_value() -> list[object]:
    """A Python value 100,000 levels deep, as a library caller could hand one over."""
    value: list[object] = []
    for _ in range(DEEP):
        value = [value]
    return value
