def test_helper():
    raise AssertionError('EVIL-CODE-RAN')
