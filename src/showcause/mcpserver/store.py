"""Full review results, kept for a while so a capped tool result can point at them (`showcause://review/ID`).

In memory only, per server process: bounded in count and age, so a long session does not grow without end.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

__all__ = ["RESOURCE_TEMPLATE", "ReviewStore", "resource_uri"]

RESOURCE_TEMPLATE = "showcause://review/{review_id}"


def resource_uri(review_id: str) -> str:
    return RESOURCE_TEMPLATE.format(review_id=review_id)


class ReviewStore:
    def __init__(self, max_items: int = 64, ttl_s: float = 3600.0) -> None:
        self.max_items, self.ttl_s = max_items, ttl_s
        self._items: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, review_id: str, doc: dict[str, Any]) -> None:
        with self._lock:
            self._items[review_id] = (time.monotonic(), doc)
            self._items.move_to_end(review_id)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)

    def get(self, review_id: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._items.get(review_id)
            if found is None:
                return None
            if time.monotonic() - found[0] > self.ttl_s:
                del self._items[review_id]
                return None
            return found[1]
