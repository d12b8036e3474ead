"""A thread pool whose tasks run in the context of the code that submitted them.

A review fans its probes out to worker threads; what the caller set in context variables (the cancellation
scope of an MCP call, where progress goes) must hold in those threads too, or a cancelled call's tests
would keep running in a pool thread. `concurrent.futures` does not copy the context; this pool does.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["ContextPool"]

_T = TypeVar("_T")


class ContextPool(ThreadPoolExecutor):
    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)
