"""Bounded parsing (jsonsafe, tomlsafe): caps checked before the decoder, linear scans, no recursion."""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path

import pytest

from deep import DEEP
from showcause.core import jsonsafe, tomlsafe
from showcause.core.jsonsafe import MAX_DEPTH, ParseLimitError


def nested(depth: int, opener: str = "[") -> str:
    """A valid document `depth` levels deep: lists, or objects with one key each."""
    if opener == "{":
        return '{"a": ' * depth + "1" + "}" * depth
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("text", ["[" * DEEP, "{" * DEEP, '{"a": ' * DEEP, "[{" * (DEEP // 2), nested(DEEP)])
def test_deep_json_is_refused_before_the_decoder(text: str):
    with pytest.raises(ParseLimitError) as info:
        jsonsafe.loads(text, max_bytes=10_000_000)
    assert info.value.kind == "depth" and info.value.limit == MAX_DEPTH
    assert f"nested deeper than {MAX_DEPTH} levels" in str(info.value)
    assert isinstance(info.value, ValueError)   # every existing `except ValueError` maps it


def test_nesting_up_to_the_cap_parses():
    assert jsonsafe.loads(nested(MAX_DEPTH), max_bytes=10_000) == json.loads(nested(MAX_DEPTH))
    assert jsonsafe.loads(nested(MAX_DEPTH, "{"), max_bytes=10_000) == json.loads(nested(MAX_DEPTH, "{"))
    with pytest.raises(ParseLimitError):
        jsonsafe.loads(nested(MAX_DEPTH + 1), max_bytes=10_000)
    assert jsonsafe.loads(nested(5), max_bytes=100, max_depth=5) == [[[[[]]]]]
    with pytest.raises(ParseLimitError):
        jsonsafe.loads(nested(6), max_bytes=100, max_depth=5)


@pytest.mark.parametrize("text", [
    json.dumps({"pattern": "[" * 5000 + "{" * 5000}),            # brackets inside a string do not nest
    json.dumps({"k": 'a"[[[' * 2000}),                            # nor after escaped quotes
    json.dumps(["\\", "[" * 500, "\\\\\"[[[" * 500]),             # backslashes before quotes
])
def test_brackets_in_strings_do_not_count(text: str):
    assert jsonsafe.loads(text, max_bytes=1_000_000) == json.loads(text)


def test_size_cap_counts_utf8_bytes():
    assert jsonsafe.loads('"' + "é" * 10 + '"', max_bytes=22) == "é" * 10
    with pytest.raises(ParseLimitError) as info:
        jsonsafe.loads('"' + "é" * 10 + '"', max_bytes=21)
    assert info.value.kind == "size" and "larger than 21 bytes" in str(info.value)
    with pytest.raises(ParseLimitError):
        jsonsafe.loads(b"[1, 2, 3]", max_bytes=8)


def test_invalid_json_is_still_a_decode_error():
    with pytest.raises(json.JSONDecodeError):
        jsonsafe.loads("{bad", max_bytes=100)


def test_extent_finds_where_a_value_closes():
    text = 'say {"a": "}", "b": [1, {"c": 2}]} and {'
    end = jsonsafe.extent(text, 4)
    assert end is not None and json.loads(text[4:end]) == {"a": "}", "b": [1, {"c": 2}]}
    assert jsonsafe.extent(text, text.rindex("{")) is None
    with pytest.raises(ParseLimitError):
        jsonsafe.extent("x " + "{" * 100, 2)


def test_scans_are_linear():
    # CPU time, not wall time: a loaded machine stretches the wall clock, never the work a scan does
    # (linear: about a second; a quadratic scan of these inputs: hours).
    started = time.process_time()
    with pytest.raises(ParseLimitError):
        jsonsafe.loads("[" * 4_000_000, max_bytes=jsonsafe.MAX_TEXT_BYTES)
    many = [[i, {"k": [i]}] for i in range(150_000)]   # 600,000 brackets, 3 levels
    assert jsonsafe.loads(json.dumps(many), max_bytes=jsonsafe.MAX_TEXT_BYTES) == many
    assert time.process_time() - started < 10


def test_check_depth_is_iterative():
    value: list[object] = []
    for _ in range(DEEP):
        value = [value]
    with pytest.raises(ParseLimitError):
        jsonsafe.check_depth(value)
    jsonsafe.check_depth({"a": [{"b": 1}], "c": (1, 2)}, max_depth=3)
    with pytest.raises(ParseLimitError):
        jsonsafe.check_depth({"a": [{"b": []}]}, max_depth=3)


def test_files_are_read_no_further_than_the_cap(tmp_path: Path):
    path = tmp_path / "big.json"
    path.write_text("[" + "1, " * 1000 + "1]", encoding="utf-8")
    assert len(jsonsafe.load_file(path, max_bytes=10_000)) == 1001
    with pytest.raises(ParseLimitError):
        jsonsafe.load_file(path, max_bytes=100)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(UnicodeDecodeError):
        jsonsafe.load_file(path, max_bytes=100)


# ---- TOML -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,what", [
    ("x = " + "[" * DEEP + "]" * DEEP, "nested deeper"),
    ("x = " + "{a = " * DEEP + "1" + "}" * DEEP, "nested deeper"),
    ("x" + ".x" * DEEP + " = 1\n", "dotted key"),                 # tomllib: quadratic, minutes
    ("[" + "x." * DEEP + "x]\n", "dotted key"),
    ("[" + ".".join(["t"] * 40) + "]\na = " + "{ b = " * 30 + "1" + " }" * 30 + "\n", "nested deeper"),
])
def test_deep_toml_is_refused(text: str, what: str):
    started = time.monotonic()
    with pytest.raises(ParseLimitError) as info:
        tomlsafe.loads(text)
    assert what in str(info.value)
    assert time.monotonic() - started < 5


def test_dotted_keys_and_tables_nest_together():
    text = "[" + ".".join(["a"] * 40) + "]\n" + ".".join(["b"] * 30) + " = 1\n"
    with pytest.raises(ParseLimitError):
        tomlsafe.loads(text)   # 70 levels in all, though no single key or bracket run reaches the cap


def test_ordinary_toml_parses_as_tomllib_does():
    text = '''# a comment with [[[ and ... and {{{
title = "x [[[ ... {{{"   # trailing comment ]]]
path = 'C:\\dir\\[x].y'
multi = """
one ] two "" three. four "quoted" [[[ ...
"""""
lit = \'\'\'[[[ ... \'\'\'\'
floats = [1.5, 2.5, 3.25, 1979-05-27T07:32:00.999]
"quoted.key" = 1
a.b.c = { d.e = 2, f = [1.0, [2.0]] }

[tool.pyright]
include = ["src"]

[[servers.alpha]]
ip = "10.0.0.1"
''' + "".join(f"v{i} = {i}.5\n" for i in range(200))
    assert tomlsafe.loads(text) == tomllib.loads(text)
    policy = Path(__file__).resolve().parents[1] / "sandbox" / "policy.toml"
    assert tomlsafe.load_file(policy) == tomllib.loads(policy.read_text(encoding="utf-8"))


def test_toml_size_cap(tmp_path: Path):
    path = tmp_path / "big.toml"
    path.write_text("".join(f"x{i} = 1\n" for i in range(10)), encoding="utf-8")
    assert len(tomlsafe.load_file(path, max_bytes=70)) == 10
    with pytest.raises(ParseLimitError):
        tomlsafe.load_file(path, max_bytes=69)
