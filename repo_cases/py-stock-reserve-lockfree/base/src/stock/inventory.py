import threading
from dataclasses import dataclass


class OutOfStock(Exception):
    def __init__(self, sku: str, wanted: int, available: int) -> None:
        super().__init__(f"{sku}: wanted {wanted}, only {available} available")
        self.sku = sku
        self.wanted = wanted
        self.available = available


@dataclass(frozen=True)
class Reservation:
    id: int
    sku: str
    quantity: int


class Inventory:
    def __init__(self, levels: dict[str, int] | None = None) -> None:
        self._levels: dict[str, int] = dict(levels or {})
        self._reservations: dict[int, Reservation] = {}
        self._next_id = 1
        self._lock = threading.Lock()

    def available(self, sku: str) -> int:
        return self._levels.get(sku, 0)

    def restock(self, sku: str, quantity: int) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        with self._lock:
            self._levels[sku] = self._levels.get(sku, 0) + quantity

    def reserve(self, sku: str, quantity: int) -> Reservation:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        with self._lock:
            available = self._levels.get(sku, 0)
            if available < quantity:
                raise OutOfStock(sku, quantity, available)
            self._levels[sku] = available - quantity
            reservation = Reservation(self._next_id, sku, quantity)
            self._next_id += 1
            self._reservations[reservation.id] = reservation
            return reservation

    def release(self, reservation_id: int) -> None:
        with self._lock:
            reservation = self._reservations.pop(reservation_id)
            self._levels[reservation.sku] = self._levels.get(reservation.sku, 0) + reservation.quantity

    def outstanding(self) -> list[Reservation]:
        with self._lock:
            return list(self._reservations.values())
