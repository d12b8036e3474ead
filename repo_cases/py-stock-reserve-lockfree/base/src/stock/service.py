from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from stock.inventory import Inventory, OutOfStock, Reservation


@dataclass(frozen=True)
class OrderLine:
    sku: str
    quantity: int


@dataclass(frozen=True)
class Outcome:
    ok: bool
    reservations: tuple[Reservation, ...] = ()
    reason: str = ""


class ReservationService:
    """Reserves stock for incoming orders; requests are handled on a pool of worker threads."""

    def __init__(self, inventory: Inventory, workers: int = 16) -> None:
        self.inventory = inventory
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reserve")

    def reserve_order(self, lines: list[OrderLine]) -> Outcome:
        done: list[Reservation] = []
        try:
            for line in lines:
                done.append(self.inventory.reserve(line.sku, line.quantity))
        except OutOfStock as exc:
            for r in done:
                self.inventory.release(r.id)
            return Outcome(False, reason=str(exc))
        return Outcome(True, tuple(done))

    def submit(self, lines: list[OrderLine]) -> "Future[Outcome]":
        return self._pool.submit(self.reserve_order, lines)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
