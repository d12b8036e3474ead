def test_evil():
    raise AssertionError('EVIL-CODE-RAN')
