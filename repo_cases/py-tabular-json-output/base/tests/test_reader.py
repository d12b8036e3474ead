import pytest

from tabular.reader import InputError, read_rows, select


def test_read_rows_skips_blank_lines() -> None:
    header, rows = read_rows("a,b\n1,2\n\n3,4\n")
    assert header == ["a", "b"] and rows == [["1", "2"], ["3", "4"]]


def test_ragged_row() -> None:
    with pytest.raises(InputError, match="row 3"):
        read_rows("a,b\n1,2\n3\n")


def test_select() -> None:
    assert select(["a", "b", "c"], [["1", "2", "3"]], ["c", "a"]) == (["c", "a"], [["3", "1"]])
    with pytest.raises(InputError):
        select(["a"], [], ["z"])
