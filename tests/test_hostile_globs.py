"""Globs a repository chooses are matched in linear time on the host (core/globmatch.py), never by a
backtracking regex built from their text: `**a**a…**b` against a name of many `a`s took seconds per extra
`a**` with the old regexes (8 s for five, 15-20x for each more), so a review or an MCP server stalled.

The timeouts below are the failure signal, not a measurement: the same inputs through a backtracking regex
run for hours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from showcause.core.errors import InputError
from showcause.core.globmatch import compile_glob
from showcause.policy import load_policy
from showcause.tools.pyright_config import configured_files
from showcause.tools.runners.globs import discover_tests

HOSTILE = "**" + "a**" * 12 + "b"
LONG_NAME = "a" * 200


@pytest.mark.timeout(10)
def test_a_hostile_glob_matches_in_linear_time() -> None:
    glob = compile_glob(HOSTILE)
    assert glob is not None
    assert not glob.match(LONG_NAME)
    assert glob.match(LONG_NAME + "b")
    assert not glob.match("/".join([LONG_NAME] * 20))


@pytest.mark.timeout(10)
def test_pyright_include_from_the_repository_is_matched_without_backtracking(tmp_path: Path) -> None:
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"include": [HOSTILE + ".py", "src"]}))
    files = configured_files(tmp_path)
    assert files is not None and files.source == "pyrightconfig.json"
    assert not files.covers(LONG_NAME + ".py")
    assert files.covers(LONG_NAME + "b.py")
    assert files.covers("src/pkg/mod.py") and not files.covers("srcx/mod.py")


def test_pyright_entries_cover_what_they_match_and_everything_below(tmp_path: Path) -> None:
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"include": ["pkg/*/sub"], "exclude": ["**/gen"]}))
    files = configured_files(tmp_path)
    assert files is not None
    assert [files.covers(p) for p in ("pkg/a/sub/x.py", "pkg/a/b/sub/x.py", "pkg/a/sub/gen/x.py", "gen.py")] \
        == [True, False, False, False]


@pytest.mark.timeout(10)
def test_discovery_globs_a_repository_sets_are_linear_and_unreadable_ones_are_refused(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / (LONG_NAME + ".py")).write_text("")
    (tmp_path / "tests" / (LONG_NAME + "b.py")).write_text("")
    policy = load_policy({"tests": {"discover": ["tests/" + HOSTILE + ".py"]}})
    assert discover_tests(tmp_path, policy.tests.discover) == [f"tests/{LONG_NAME}b.py"]
    with pytest.raises(InputError, match="cannot read the glob '!\\(x\\)'"):
        load_policy({"tests": {"discover": ["!(x)"]}})
