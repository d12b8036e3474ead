from app import two


def test_two():
    assert two() == 2
