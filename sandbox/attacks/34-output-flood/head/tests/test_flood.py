import os


def test_flood_stdout():
    chunk = b"A" * (1024 * 1024)
    for _ in range(300):
        os.write(1, chunk)
    for _ in range(20):
        os.write(2, chunk)


def test_huge_message():
    assert False, "B" * 10_000_000
