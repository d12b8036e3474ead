from tabular.render import render_table


def test_numbers_right_aligned() -> None:
    out = render_table(["item", "qty"], [["apple", "3"], ["kiwi", "12"]])
    assert out.splitlines() == ["item  | qty", "------+----", "apple |   3", "kiwi  |  12"]


def test_wide_characters_align() -> None:
    out = render_table(["city", "n"], [["東京", "1"], ["Paris", "2"]])
    # 東京 occupies four terminal columns
    assert out.splitlines()[2] == "東京  | 1"
