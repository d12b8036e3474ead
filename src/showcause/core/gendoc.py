"""Generated sections inside hand-written Markdown, between marker comments.

A section is::

    <!-- BEGIN GENERATED name: what generates it; do not edit -->
    …generated text…
    <!-- END GENERATED name -->

Everything outside the markers is prose and left as written; `splice` replaces only the text between
them, so a drift test can regenerate a file and compare it with the committed one.
"""

from __future__ import annotations

import re

__all__ = ["begin_marker", "end_marker", "section", "splice"]


def begin_marker(name: str, source: str) -> str:
    return f"<!-- BEGIN GENERATED {name}: {source}; do not edit -->"


def end_marker(name: str) -> str:
    return f"<!-- END GENERATED {name} -->"


def _bounds(text: str, name: str) -> tuple[int, int]:
    """(start, end) of the text between the markers of ``name``; ValueError unless there is exactly one pair."""
    begins = [m.end() for m in re.finditer(rf"<!-- BEGIN GENERATED {re.escape(name)}: [^\n]*-->\n", text)]
    ends = [m.start() for m in re.finditer(rf"^{re.escape(end_marker(name))}$", text, re.MULTILINE)]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ValueError(f"generated section {name!r}: expected one BEGIN and one END marker after it, found "
                         f"{len(begins)} and {len(ends)}")
    return begins[0], ends[0]


def section(text: str, name: str) -> str:
    """The text between the markers of ``name``."""
    start, end = _bounds(text, name)
    return text[start:end]


def splice(text: str, name: str, body: str) -> str:
    """``text`` with the section ``name`` replaced by ``body`` (which ends with a newline)."""
    start, end = _bounds(text, name)
    return text[:start] + (body if body.endswith("\n") else body + "\n") + text[end:]
