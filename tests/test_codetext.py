"""Code text: comments, docstrings and prose blanked in place, code, keys and SQL kept."""

from __future__ import annotations

from showcause.evidence.codetext import code_text

PY = b'''"""Module doc naming old_name."""
import os  # uses old_name in a comment
def f(x):
    """Doc: old_name."""
    "a bare string old_name"
    "k1", "k2"
    msg = f"adds {old_name} to the total"
    key = "old_name"
    sql = "SELECT old_name FROM t"
    return x
'''

JS = b'''// old_name in a comment
/* block old_name */
<!-- html old_name
const a = `adds ${old_name} here`;
const b = "old_name";
const c = 'a sentence old_name';
'''


def test_python_comments_docstrings_and_prose_are_blanked_in_place() -> None:
    text = code_text("pkg/m.py", PY)
    assert text is not None
    assert text.split("\n") == [
        " " * 33,
        "import os" + " " * 30,
        "def f(x):",
        " " * 24,
        " " * 28,
        '    "k1", "k2"',                                      # two strings: an expression, not a docstring
        '    msg = f"     {old_name}             "',          # the interpolation is code
        '    key = "old_name"',                                # a key, not prose
        '    sql = "SELECT old_name FROM t"',                  # SQL, not prose
        "    return x",
        "",
    ]


def test_javascript_comments_and_prose_are_blanked_in_place() -> None:
    text = code_text("web/m.js", JS)
    assert text is not None
    assert text.split("\n") == [
        " " * 24,
        " " * 20,
        " " * 18,
        "const a = `     ${old_name}     `;",
        'const b = "old_name";',
        "const c = '                   ';",
        "",
    ]


def test_prose_and_binary_files_have_no_code_text() -> None:
    assert code_text("README.md", b"old_name") is None
    assert code_text("pkg/m.py", b"\x00old_name") is None
