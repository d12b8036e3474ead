def test_one_big_allocation():
    block = bytearray(8 * 1024**3)
    assert not block, "allocated 8 GiB"


def test_growing_allocations():
    blocks = [bytearray(1024**3) for _ in range(8)]
    assert not blocks, "allocated 8 GiB"
