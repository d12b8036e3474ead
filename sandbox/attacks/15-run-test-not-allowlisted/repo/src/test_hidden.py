def test_hidden():
    raise AssertionError('EVIL-CODE-RAN')
