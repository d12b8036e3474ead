import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from dbpool.settings import PoolSettings


class Connection(Protocol):
    def close(self) -> None: ...


class PoolTimeout(TimeoutError):
    pass


@dataclass
class _Slot:
    conn: Connection
    born: float = field(default=0.0)


class Pool:
    def __init__(self, settings: PoolSettings, connect: Callable[[str], Connection],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._connect = connect
        self._clock = clock
        self._idle: list[_Slot] = []
        self._in_use: dict[int, _Slot] = {}
        self._cond = threading.Condition()
        for _ in range(settings.min_size):
            self._idle.append(self._new_slot())

    def _new_slot(self) -> _Slot:
        return _Slot(self._connect(self.settings.dsn), self._clock())

    def _expired(self, slot: _Slot) -> bool:
        return self._clock() - slot.born >= self.settings.max_conn_age

    @property
    def size(self) -> int:
        return len(self._idle) + len(self._in_use)

    def acquire(self) -> Connection:
        deadline = self._clock() + self.settings.acquire_timeout
        with self._cond:
            while True:
                while self._idle:
                    slot = self._idle.pop()
                    if self._expired(slot):
                        slot.conn.close()
                        continue
                    self._in_use[id(slot.conn)] = slot
                    return slot.conn
                if self.size < self.settings.max_size:
                    slot = self._new_slot()
                    self._in_use[id(slot.conn)] = slot
                    return slot.conn
                remaining = deadline - self._clock()
                if remaining <= 0:
                    raise PoolTimeout(f"no connection within {self.settings.acquire_timeout}s")
                self._cond.wait(remaining)

    def release(self, conn: Connection) -> None:
        with self._cond:
            slot = self._in_use.pop(id(conn))
            if self._expired(slot):
                conn.close()
            else:
                self._idle.append(slot)
            self._cond.notify()
