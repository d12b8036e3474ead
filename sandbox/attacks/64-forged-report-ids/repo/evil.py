def test_evil():
    raise AssertionError('EVIL-CODE-RAN on base via a forged id')
