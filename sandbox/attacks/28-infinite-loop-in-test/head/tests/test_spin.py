import time


def test_spin():
    while True:
        pass


def test_sleep():
    time.sleep(3600)


def test_after():
    pass
