import pytest

from stock.inventory import Inventory, OutOfStock


def test_reserve_and_release() -> None:
    inv = Inventory({"A": 5})
    r = inv.reserve("A", 3)
    assert inv.available("A") == 2
    inv.release(r.id)
    assert inv.available("A") == 5
    assert inv.outstanding() == []


def test_out_of_stock() -> None:
    inv = Inventory({"A": 1})
    with pytest.raises(OutOfStock) as err:
        inv.reserve("A", 2)
    assert err.value.available == 1
    assert inv.available("A") == 1


def test_restock_and_validation() -> None:
    inv = Inventory()
    inv.restock("B", 4)
    assert inv.available("B") == 4
    with pytest.raises(ValueError):
        inv.reserve("B", 0)
    with pytest.raises(ValueError):
        inv.restock("B", -1)
