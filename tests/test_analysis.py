"""Host-side analysis of untrusted trees: linear in the input, bounded per review, never silent when cut."""

from __future__ import annotations

from showcause.evidence.scope import local_lines, parse_for_scope


def test_local_lines_answers_every_line_in_one_walk() -> None:
    source = b"x = 1\ndef f(x):\n    x = 2\n    return x\nclass C:\n    x = 3\ng = lambda x: x\ndef x():\n    pass\n"
    tree = parse_for_scope("m.py", source)
    assert tree is not None
    # 8: a function's own name belongs to the enclosing scope; 10: no occurrence is no local definition.
    assert local_lines(tree, "x", [1, 2, 3, 4, 6, 7, 8, 10]) == {2, 3, 4, 7}


def test_local_lines_on_deeply_nested_code() -> None:
    # Walking up from the name cost depth² here (minutes at this depth); one walk down costs the tree.
    depth = 50_000
    module = parse_for_scope("m.py", b"x = " + b"[" * depth + b"(yy := 1)" + b"]" * depth + b"\n")
    inner = parse_for_scope("m.py", b"f = lambda: " + b"[" * depth + b"(yy := 1)" + b"]" * depth + b"\n")
    assert module is not None and inner is not None
    assert local_lines(module, "yy", [1]) == set() and local_lines(inner, "yy", [1]) == {1}
