import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_MISSING = object()


class TTLCache(Generic[K, V]):
    """A thread-safe LRU cache whose entries expire `ttl` seconds after they were stored."""

    def __init__(self, maxsize: int = 1024, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        if maxsize <= 0 or ttl <= 0:
            raise ValueError("maxsize and ttl must be positive")
        self.maxsize = maxsize
        self.ttl = ttl
        self._clock = clock
        self._data: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                return default
            expires, value = entry
            if expires <= self._clock():
                del self._data[key]
                return default
            self._data.move_to_end(key)
            return value

    def set(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = (self._clock() + self.ttl, value)
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def pop(self, key: K) -> V:
        with self._lock:
            return self._data.pop(key, (0.0, None))[1]

    def purge_expired(self) -> int:
        now = self._clock()
        with self._lock:
            dead = [k for k, (expires, _) in self._data.items() if expires <= now]
            for k in dead:
                del self._data[k]
            return len(dead)
