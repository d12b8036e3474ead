"""Code text: comments, docstrings and prose blanked in place, code, keys and SQL kept."""

from __future__ import annotations

import re
from typing import Any

import pytest

from showcause.analysis import codetext, configtext
from showcause.analysis.codetext import code_text, config_keys

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


def test_unclosed_and_nested_comments_in_sql_and_markup() -> None:
    # A comment never closed runs to the end of the file; an opener inside a comment opens nothing.
    sql = b"SELECT a -- old_name\n/* x /* y\nold_name */ b; /* never closed\nold_name;\n"
    assert code_text("db/m.sql", sql) == "SELECT a            \n         \n            b;                \n         \n"
    # `/*/` does not close itself (the `*` belongs to the opener), nor `<!-->`.
    assert code_text("db/m.sql", b"UPDATE t SET a = 1; /*/ old_name\n*/ old_name") == (
        "UPDATE t SET a = 1;             \n   old_name")
    html = b"<p>old_name</p><!-- a <!-- b --> c <!-- open\nold_name\n"
    assert code_text("web/p.html", html) == "<p>old_name</p>                  c          \n        \n"
    assert code_text("web/p.html", b"<!-->old_name-->x") == "                x"


def test_json_strings_open_at_a_line_end_are_not_strings() -> None:
    # The escaped quotes of a string left open at its line's end open no string of their own.
    data = b'{"k": "a b", "q": "\\"\\"\\" old_name\n"y": "old_name", "s": "two words"}\n'
    assert code_text("conf/c.json", data) == ('{"k":      , "q": "\\"\\"\\" old_name\n'
                                              '"y": "old_name", "s":            }\n')


class _CountingBytes(bytes):
    """Bytes whose `find` adds up how far each call scanned."""

    scanned = 0

    def find(self, sub: Any, start: Any = 0, end: Any = None) -> int:
        found = super().find(sub, start, end)
        type(self).scanned += (found if found >= 0 else len(self)) - start
        return found


class _CountingPattern:
    """A compiled pattern whose search and match add up how far each call got."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self.pattern, self.scanned = pattern, 0

    def search(self, data: bytes, pos: int) -> re.Match[bytes] | None:
        m = self.pattern.search(data, pos)
        self.scanned += (m.end() if m else len(data)) - pos
        return m

    def match(self, data: bytes, pos: int, endpos: int | None = None) -> re.Match[bytes] | None:
        m = self.pattern.match(data, pos, len(data) if endpos is None else endpos)
        self.scanned += (m.end() if m else 0) - pos + 1
        return m


@pytest.mark.parametrize(("path", "opener", "attr"), [
    ("db/dump.sql", b"/* ", "_SQL_OPENERS"), ("db/dump.sql", b"-- /* ", "_SQL_OPENERS"),
    ("web/page.html", b"<!-- ", "_MARKUP_OPENERS"), ("web/page.html", b"<!-- -- ", "_MARKUP_OPENERS"),
    ("conf/data.json", b'"\\', "_JSON_BODY"), ("conf/data.json", b'"\\"', "_JSON_BODY"),
])
def test_scanners_look_at_each_byte_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch, path: str, opener: bytes, attr: str) -> None:
    """Hostile files (openers repeated, never closed) cost each scanner at most a few passes over the file:
    counted, not timed. A scan from every opener to the end of the file would count len²/len(opener)."""
    counting = _CountingPattern(getattr(codetext, attr))
    monkeypatch.setattr(codetext, attr, counting)
    _CountingBytes.scanned = 0
    data = _CountingBytes(b"old_name\n" + opener * (200_000 // len(opener)) + b"\nold_name\n")
    codetext.code_text(path, data)
    assert counting.scanned > 0 and counting.scanned + _CountingBytes.scanned <= 3 * len(data)


@pytest.mark.parametrize("opener", [b"'", b'"', b'"\\', b'"\\"', b"'\"", b"a 'b' ", b'k = "v", '])
def test_the_config_quote_scanner_looks_at_each_byte_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch, opener: bytes) -> None:
    """Quotes of both kinds, repeated on one line and never closed, cost the TOML/YAML/INI string scanner a
    few passes over the line (a search for the next quote from every quote would count len²)."""
    counting = _CountingPattern(configtext._DOUBLE_BODY)
    monkeypatch.setattr(configtext, "_DOUBLE_BODY", counting)
    _CountingBytes.scanned = 0
    data = _CountingBytes(b"k = 1\n" + opener * (200_000 // len(opener)) + b"\nold_name\n")
    spans = list(configtext.quoted_spans(data))
    assert all(data[s:s + 1] == data[e - 1:e] and b"\n" not in data[s:e] for s, e in spans)
    assert counting.scanned + _CountingBytes.scanned <= 3 * len(data)


def test_config_values_that_are_prose_are_blanked_and_keys_and_whole_values_kept() -> None:
    toml = (b'# a comment: old_name\n[old_name.table]\nold_name = 1\nnote = "uses old_name here"\n'
            b'handler = "pkg.jobs:old_name"\nlist = ["old_name", "two words"]\ninline = { old_name = "a b" }\n')
    text = code_text("conf/app.toml", toml)
    assert text is not None
    assert text.split("\n") == [
        " " * 21,
        "[old_name.table]",
        "old_name = 1",
        "note = " + " " * 20,
        'handler = "pkg.jobs:old_name"',
        'list = ["old_name",            ]',
        "inline = { old_name =       }",
        "",
    ]
    assert config_keys("conf/app.toml", text) == {2: {"old_name", "table"}, 3: {"old_name"}, 4: {"note"},
                                                  5: {"handler"}, 6: {"list"}, 7: {"inline", "old_name"}}
    yaml = b"jobs:\n  - handler: old_name\n    help: runs old_name nightly\ntext: |\n  old_name is gone\n"
    text = code_text("conf/app.yaml", yaml)
    assert text == "jobs:\n  - handler: old_name\n    help:" + " " * 22 + "\ntext: |\n" + " " * 18 + "\n"
    assert config_keys("conf/app.yaml", text) == {1: {"jobs"}, 2: {"handler"}, 3: {"help"}, 4: {"text"}}
    assert config_keys("conf/app.json", '{"old_name": "x", "k": ["old_name"]}') == {1: {"old_name", "k"}}
