from decimal import Decimal

from store.cart import Cart

CATALOG = {"tea": Decimal("3.50"), "mug": Decimal("8.00")}


def test_total_without_discount():
    cart = Cart(CATALOG)
    cart.add("tea", 2)
    cart.add("mug")
    assert cart.total() == Decimal("15.00")


def test_total_with_discount():
    cart = Cart(CATALOG)
    cart.add("mug", 2)
    assert cart.total(25) == Decimal("12.00")
