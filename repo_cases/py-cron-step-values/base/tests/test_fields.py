import pytest

from cronlite.fields import HOUR, MINUTE, MONTH, WEEKDAY, CronSyntaxError, parse_field


def test_star_covers_the_whole_field() -> None:
    assert parse_field("*", HOUR) == frozenset(range(24))


def test_lists_and_aliases() -> None:
    assert parse_field("jan,mar,dec", MONTH) == {1, 3, 12}
    assert parse_field("0,15,30,45", MINUTE) == {0, 15, 30, 45}


def test_weekdays_range() -> None:
    assert parse_field("mon-fri", WEEKDAY) == {1, 2, 3, 4, 5}
    assert parse_field("9-17", HOUR) == set(range(9, 18))


def test_sunday_as_seven() -> None:
    assert parse_field("7", WEEKDAY) == {0}


@pytest.mark.parametrize("bad", ["", "60", "5-1", "x", "1,,2"])
def test_rejects(bad: str) -> None:
    with pytest.raises(CronSyntaxError):
        parse_field(bad, MINUTE)
