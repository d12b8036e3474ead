"""Where a running review says what it is doing: each probe as it starts and as it ends.

The front end that wants it (the MCP server, for `notifications/progress`) sets a reporter for the call;
the ledger reports every tool call through it. A context variable, not an argument threaded through every
layer: the reporter follows the call into the pool threads (`core.threads.ContextPool`) and nowhere else.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

__all__ = ["report", "reporting"]

Reporter = Callable[[str], None]
_reporter: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar("showcause_progress", default=None)


@contextlib.contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Send `report` calls made in this context (and in pools it submits to) to `reporter`."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


def report(message: str) -> None:
    """Tell the reporter of this context, if any; a reporter that fails never fails the review."""
    reporter = _reporter.get()
    if reporter is not None:
        with contextlib.suppress(Exception):
            reporter(message)
