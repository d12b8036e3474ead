def test_total_with_discount():
    assert 1 == 2
