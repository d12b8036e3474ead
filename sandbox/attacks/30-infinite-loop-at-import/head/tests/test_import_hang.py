while True:
    pass


def test_never_collected():
    pass
