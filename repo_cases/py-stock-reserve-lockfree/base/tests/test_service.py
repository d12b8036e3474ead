from stock.inventory import Inventory
from stock.service import OrderLine, ReservationService


def test_order_is_all_or_nothing() -> None:
    inv = Inventory({"A": 2, "B": 1})
    svc = ReservationService(inv, workers=2)
    try:
        bad = svc.submit([OrderLine("A", 2), OrderLine("B", 2)]).result()
        assert not bad.ok and "B" in bad.reason
        assert inv.available("A") == 2
        good = svc.submit([OrderLine("A", 1), OrderLine("B", 1)]).result()
        assert good.ok and len(good.reservations) == 2
    finally:
        svc.close()
