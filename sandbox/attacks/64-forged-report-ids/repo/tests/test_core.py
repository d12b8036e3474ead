def test_important():
    pass
