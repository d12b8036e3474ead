def test_spin():
    while True:
        pass
