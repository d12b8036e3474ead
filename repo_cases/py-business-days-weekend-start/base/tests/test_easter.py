from datetime import date

import pytest

from workdays.easter import easter_sunday

@pytest.mark.parametrize(("year", "expected"), [(2019, date(2019, 4, 21)), (2024, date(2024, 3, 31)),
                                                (2025, date(2025, 4, 20)), (2038, date(2038, 4, 25))])
def test_easter(year: int, expected: date) -> None:
    assert easter_sunday(year) == expected
