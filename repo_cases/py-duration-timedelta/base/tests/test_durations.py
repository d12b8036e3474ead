import pytest

from jobq.durations import format_duration, parse_duration


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("90s", 90), ("5m", 300), ("1h30m", 5400), ("2d", 172800)])
def test_parse(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "5x", "m5", "1h 30m", "-5s"])
def test_parse_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_format_roundtrip() -> None:
    for seconds in (0, 59, 60, 3661, 90061):
        assert parse_duration(format_duration(seconds)) == seconds
