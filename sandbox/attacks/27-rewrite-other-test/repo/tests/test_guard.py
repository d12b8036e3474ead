def test_guard():
    raise AssertionError('GUARD-STILL-FAILS')
