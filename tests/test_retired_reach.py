"""The retired-name probe retires only names other code can reach, and counts only real references:
real git diffs, ripgrep, tree-sitter and the mechanical judge (and once the `showcause` executable)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from builders import make_case
from showcause.analysis.reach import is_common_word, is_test_data
from showcause.analysis.retired import RetiredName, Retirement
from showcause.core.result import ReviewResult
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
NO_CHECKS: dict[str, object] = {"tests": [], "typecheck": "none"}
PYPROJECT = '[tool.pytest.ini_options]\npythonpath = ["src"]\n'


def _review(case: Path) -> tuple[ReviewResult, dict[str, str]]:
    """The mechanical review of a case, and the names it retired with why."""
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
        names = {n: r.why for n, r in Retirement(snap).names.items()}
    return result, names


def _dangling(result: ReviewResult) -> list[tuple[str, str, int | None]]:
    return sorted((a.subject, a.file, a.line) for c in result.tool_calls for a in c.artifacts
                  if a.type == "dangling_reference")


# ---------------------------------------------------------------------------------------------------------------
# A private helper removed: its local variable `line` is no name of the project (the real library's shape)
# ---------------------------------------------------------------------------------------------------------------

PARSER = ('def parse(text: str) -> list[str]:\n'
          '    return [w for w in _split_lines(text) if w]\n'
          '\n\n'
          'def _split_lines(text: str) -> list[str]:\n'
          '    out = []\n'
          '    for line in text.split("\\n"):\n'
          '        out.append(line.strip())\n'
          '    return out\n')
FIXTURE_TOML = ('# one case per table\n'
                '[basic]\n'
                'line = 1\n'
                'text = "line"\n'
                'expected = ["line", "first line"]\n'
                '\n'
                '[line]\n'
                'line = "a line of text"\n')


def test_a_removed_private_helper_leaves_its_locals_unretired_and_fixtures_unblocked(tmp_path: Path):
    base: dict[str, str | bytes] = {
        "pyproject.toml": PYPROJECT,
        "src/pkg/__init__.py": "",
        "src/pkg/parser.py": PARSER,
        "tests/fixtures/basic.toml": FIXTURE_TOML,
        "tests/fixtures/more/edge.toml": 'line = "  line  "\nlines = 2\n',
        "tests/test_parser.py": ("import tomllib\nfrom pathlib import Path\n\nfrom pkg.parser import parse\n\n"
                                 "FIXTURES = Path(__file__).parent / 'fixtures'\n\n\n"
                                 "def test_parse():\n    assert parse('a\\n b\\n') == ['a', 'b']\n\n\n"
                                 "def test_fixture_tables():\n"
                                 "    assert len(tomllib.loads((FIXTURES / 'basic.toml').read_text())) == 2\n"),
    }
    head: dict[str, str | bytes | None] = {
        "src/pkg/parser.py": ('def parse(text: str) -> list[str]:\n'
                              '    return [w.strip() for w in text.split("\\n") if w.strip()]\n'),
    }
    case = make_case(tmp_path / "helper", base, head, checks={"tests": ["tests/test_parser.py"], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        retirement = Retirement(snap)
        assert {n: (r.why, r.base_count, r.head_count) for n, r in retirement.names.items()} == {
            "_split_lines": ("its definition was removed", 2, 0)}
        assert [retirement.uses("tests/fixtures/basic.toml", n) for n in (3, 4, 5, 7, 8)] == [[]] * 5
    proc = subprocess.run([SHOWCAUSE, "review", "--case", str(case), "--format", "json"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert (record["verdict"], record["claims"]) == ("KEEP", [])
    assert [(c["tool"], c["artifacts"]) for c in record["tool_calls"]] == [("run_test", []), ("search", [])]
    assert "_split_lines" in record["tool_calls"][1]["args"]["pattern"]
    assert "1 retired name(s) searched" in record["summary"]


# ---------------------------------------------------------------------------------------------------------------
# Parameters are never retired, whatever else holds the word
# ---------------------------------------------------------------------------------------------------------------

def test_a_parameter_of_a_removed_function_is_not_retired(tmp_path: Path):
    base: dict[str, str | bytes] = {
        "src/pkg/money.py": ("def format_total(amount_cents: int, currency_code: str) -> str:\n"
                             "    return f'{amount_cents / 100:.2f} {currency_code}'\n"),
        "src/pkg/invoice.py": ("from pkg.money import format_total\n\n\n"
                               "def footer(total: int) -> str:\n    return format_total(total, 'EUR')\n"),
        # The same words as a config key, a whole config value and a word of prose.
        "config/app.toml": 'currency_code = "EUR"\nexport_fields = ["amount_cents", "currency_code"]\n',
        "config/export.json": '{"columns": ["amount_cents", "currency_code"]}\n',
        "docs/money.md": "Totals take amount_cents and a currency_code.\n",
    }
    head: dict[str, str | bytes | None] = {
        "src/pkg/money.py": "CURRENCY = 'EUR'\n",
        "src/pkg/invoice.py": "def footer(total: int) -> str:\n    return f'{total / 100:.2f} EUR'\n",
    }
    result, names = _review(make_case(tmp_path / "param", base, head, checks=NO_CHECKS))
    assert names == {"format_total": "its definition was removed"}
    assert (result.verdict, result.claims, _dangling(result)) == ("KEEP", [], [])


# ---------------------------------------------------------------------------------------------------------------
# What is still caught: a module-level function, a method, a config key the code read
# ---------------------------------------------------------------------------------------------------------------

TOTALS_LEFT = "def grand_total(xs: list[int]) -> int:\n    return sum(xs)\n"
TOTALS = "def legacy_total(xs: list[int]) -> int:\n    return sum(xs)\n\n\n" + TOTALS_LEFT


def test_the_retired_names_are_worked_out_once_when_two_threads_ask_at_once(tmp_path: Path):
    """The mechanical judge asks for them beside the test processes, and a call that shows lines asks too."""
    base: dict[str, str | bytes] = {"src/pkg/totals.py": TOTALS, "src/pkg/report.py": "from pkg import totals\n"}
    case = make_case(tmp_path / "once", base, {"src/pkg/totals.py": TOTALS_LEFT}, checks=NO_CHECKS)
    with open_snapshot(case=case) as snap:
        retirement = Retirement(snap)
        start = threading.Barrier(2)

        def ask() -> dict[str, RetiredName]:
            start.wait()
            return retirement.names

        with ThreadPoolExecutor(max_workers=2) as pool:
            first, second = pool.map(lambda _: ask(), range(2))
    assert first is second and list(first) == ["legacy_total"]


def test_a_removed_module_level_function_still_called_elsewhere_blocks(tmp_path: Path):
    base: dict[str, str | bytes] = {
        "src/pkg/totals.py": TOTALS,
        "src/pkg/report.py": ("from pkg import totals\n\n\n"
                              "def render(xs: list[int]) -> str:\n"
                              "    return f'{totals.legacy_total(xs)} / {totals.grand_total(xs)}'\n"),
        "src/pkg/jobs.json": '{"nightly": "pkg.totals.legacy_total"}\n',
    }
    # (An unchanged `from pkg.totals import legacy_total` would bind the name on head: the typecheck's.)
    head: dict[str, str | bytes | None] = {"src/pkg/totals.py": TOTALS_LEFT}
    result, names = _review(make_case(tmp_path / "fn", base, head, checks=NO_CHECKS))
    assert names == {"legacy_total": "its definition was removed"}
    assert result.verdict == "MODIFY"
    [claim] = result.claims
    assert claim.claim.claim == ("`legacy_total` is retired by the change but still used at src/pkg/jobs.json:1, "
                                 "src/pkg/report.py:5.")
    assert claim.status == "validated" and claim.verdict == "MODIFY"
    assert _dangling(result) == [("legacy_total", "src/pkg/jobs.json", 1), ("legacy_total", "src/pkg/report.py", 5)]


def test_a_removed_method_still_called_on_an_object_blocks_and_a_local_of_that_name_does_not(tmp_path: Path):
    cart = ("class Cart:\n"
            "    def __init__(self, prices: list[int]) -> None:\n"
            "        self.prices = prices\n\n"
            "    def subtotal(self) -> int:\n"
            "        return sum(self.prices)\n\n"
            "    def total(self, tax: int) -> int:\n"
            "        return sum(self.prices) + tax\n")
    base: dict[str, str | bytes] = {
        "src/shop/cart.py": cart,
        "src/shop/checkout.py": ("from shop.cart import Cart\n\n\n"
                                 "def pay(cart: Cart) -> int:\n    return cart.subtotal()\n"),
        "src/shop/stats.py": ("def mean(xs: list[int]) -> float:\n"
                              "    subtotal = sum(xs)\n    return subtotal / len(xs)\n"),
    }
    head: dict[str, str | bytes | None] = {
        "src/shop/cart.py": cart.replace("    def subtotal(self) -> int:\n        return sum(self.prices)\n\n", ""),
    }
    case = make_case(tmp_path / "method", base, head, checks=NO_CHECKS)
    result, names = _review(case)
    assert names == {"subtotal": "its definition was removed"}
    with open_snapshot(case=case) as snap:
        assert Retirement(snap).names["subtotal"].member is True
    assert result.verdict == "MODIFY"
    [claim] = result.claims
    assert claim.claim.claim == "`subtotal` is retired by the change but still used at src/shop/checkout.py:5."
    assert claim.status == "validated"
    assert _dangling(result) == [("subtotal", "src/shop/checkout.py", 5)]   # stats.py:2-3 is a local


SETTINGS_BASE: dict[str, str | bytes] = {
    "src/app/settings.py": ("def timeout(settings: dict[str, int]) -> float:\n"
                            "    return settings[\"timeout_ms\"] / 1000\n"),
    "config/app.toml": "# the service's own settings\ntimeout_ms = 500\nname = \"api\"\n",
    "tests/fixtures/legacy.toml": "timeout_ms = 100\n",
    "tests/data/old.json": '{"timeout_ms": 100}\n',
}
SETTINGS_HEAD: dict[str, str | bytes | None] = {
    "src/app/settings.py": ("def timeout(settings: dict[str, float]) -> float:\n"
                            "    return settings[\"timeout_s\"]\n"),
}


def test_a_config_key_the_code_stopped_reading_blocks_where_the_config_still_sets_it(tmp_path: Path):
    result, names = _review(make_case(tmp_path / "key", SETTINGS_BASE, SETTINGS_HEAD, checks=NO_CHECKS))
    assert names == {"timeout_ms": "no code on head reads it any more"}
    assert result.verdict == "MODIFY"
    [claim] = result.claims
    assert claim.claim.claim == "`timeout_ms` is retired by the change but still used at config/app.toml:2."
    assert claim.status == "validated"
    assert _dangling(result) == [("timeout_ms", "config/app.toml", 2)]   # never the fixtures


def test_a_config_key_left_only_in_test_data_does_not_block(tmp_path: Path):
    head = {**SETTINGS_HEAD, "config/app.toml": "# the service's own settings\ntimeout_s = 0.5\nname = \"api\"\n"}
    result, names = _review(make_case(tmp_path / "fixture", SETTINGS_BASE, head, checks=NO_CHECKS))
    assert names == {"timeout_ms": "a config line holding it was removed"}
    search = next(c for c in result.tool_calls if c.tool == "search")
    assert "tests/fixtures/legacy.toml:1:" in search.output and "tests/data/old.json:1:" in search.output
    assert (result.verdict, result.claims, _dangling(result)) == ("KEEP", [], [])


SETUP_CFG = "[metadata]\nname = pluggy\n\n[devpi:upload]\nformats = sdist.tgz,bdist_wheel\n"
SPHINX_CONF = ('intersphinx_mapping = {\n    "tox": ("https://tox.wiki/en/latest", None),\n'
               '    "devpi": ("https://devpi.net/docs/devpi/devpi/stable/+doc/", None),\n}\n')


@pytest.mark.parametrize(("reader", "retired"), [
    (SPHINX_CONF, {}),                                                   # a dict literal's key reads nothing
    ('import configparser\n\ncfg = configparser.ConfigParser()\ncfg.read("setup.cfg")\n'
     'formats = cfg["devpi:upload"]["formats"]\nserver = cfg.get("devpi", "url")\n',
     {"devpi": "a config line holding it was removed"}),                 # a lookup by name does
])
def test_a_removed_tool_section_is_retired_only_when_code_reads_it(tmp_path: Path, reader: str,
                                                                    retired: dict[str, str]):
    """A real release (pluggy 1.6.0) dropped setup.cfg's `[devpi:upload]` section, read by the devpi tool:
    docs/conf.py's intersphinx entry `"devpi": (…)` and a shell script naming the tool are no readers."""
    base: dict[str, str | bytes] = {"setup.cfg": SETUP_CFG, "docs/conf.py": reader,
                                    "downstream/devpi.sh": "if [[ ! -d devpi ]]; then\n  git clone devpi\nfi\n"}
    head: dict[str, str | bytes | None] = {"setup.cfg": "[metadata]\nname = pluggy\n"}
    result, names = _review(make_case(tmp_path / "section", base, head, checks=NO_CHECKS))
    assert names == retired
    assert result.verdict == ("MODIFY" if retired else "KEEP")


@pytest.mark.parametrize(("reader", "retired"), [
    # click 8.1.8 moved its metadata out of setup.cfg: a CLI argument of that name and an attribute of it
    # read no key of a tool's own file
    ('import click\n\n\n@click.argument("download_url")\ndef fetch(download_url):\n'
     '    return download_url.strip(), fetch.download_url\n', {}),
    ('import configparser\n\ncfg = configparser.ConfigParser()\ncfg.read("setup.cfg")\n'
     'home = cfg.get("metadata", "download_url")\n', {"download_url": "a config line holding it was removed"}),
])
def test_a_key_of_a_tools_own_file_is_read_only_through_a_lookup(tmp_path: Path, reader: str,
                                                                  retired: dict[str, str]):
    base: dict[str, str | bytes] = {"setup.cfg": "[metadata]\nname = click\ndownload_url = https://x.example\n",
                                    "src/cli.py": reader}
    head: dict[str, str | bytes | None] = {"setup.cfg": "[metadata]\nname = click\n"}
    _result, names = _review(make_case(tmp_path / "loader", base, head, checks=NO_CHECKS))
    assert names == retired


EXAMPLE = ("import click\n\n\n@click.command()\ndef copy(src, dst):\n    pass\n\n\n"
           "class Repo:\n    def __init__(self, home):\n        self.home = home\n")


@pytest.mark.parametrize(("user", "blocked"), [
    # click 8.1.8 deleted examples/: a same-named local function, method call or attribute elsewhere is
    # another thing, and a dashed config word (tox.ini's `pre-copy`) no use of `copy`
    ("import shutil\n\n\ndef run(items, repo):\n    def copy(a, b):\n        return shutil.copy(a, b)\n"
     "    return [copy(i, i) for i in items.copy()], repo.home\n", []),
    ("import examples.repo.repo as repo_cli\n\n\ndef run():\n    return repo_cli.copy('a', 'b')\n",
     [("copy", "src/app/run.py", 5)]),                                  # through an import of the deleted module
])
def test_a_name_defined_only_in_a_deleted_file_is_used_only_through_its_module(tmp_path: Path, user: str,
                                                                               blocked: list[object]):
    base: dict[str, str | bytes] = {"examples/repo/repo.py": EXAMPLE, "src/app/__init__.py": "",
                                    "src/app/run.py": user, "pyproject.toml": PYPROJECT,
                                    "tox.ini": "[testenv:style]\ndeps = pre-copy\ncommands = copy run\n"}
    head: dict[str, str | bytes | None] = {"examples/repo/repo.py": None}
    result, names = _review(make_case(tmp_path / "deleted", base, head, checks=NO_CHECKS))
    assert names["copy"] == "its definition was removed"
    assert _dangling(result) == blocked
    assert result.verdict == ("MODIFY" if blocked else "KEEP")


# ---------------------------------------------------------------------------------------------------------------
# Comments, docstrings, prose strings and prose config values are no use
# ---------------------------------------------------------------------------------------------------------------

def test_a_retired_name_left_only_in_comments_and_strings_does_not_block(tmp_path: Path):
    base: dict[str, str | bytes] = {
        "src/pkg/totals.py": TOTALS,
        "src/pkg/report.py": ("import logging\n\nfrom pkg.totals import grand_total, legacy_total\n\n\n"
                              "def render(xs: list[int]) -> str:\n"
                              "    \"\"\"Sums with legacy_total.\"\"\"\n"
                              "    logging.info('legacy_total replaced')\n"
                              "    return str(legacy_total(xs) + grand_total(xs))\n"),
        "config/app.yaml": "report:\n  description: uses legacy_total for sums\n",
    }
    head: dict[str, str | bytes | None] = {
        "src/pkg/totals.py": TOTALS_LEFT,
        "src/pkg/report.py": ("import logging\n\nfrom pkg.totals import grand_total\n\n\n"
                              "def render(xs: list[int]) -> str:\n"
                              "    \"\"\"Sums with legacy_total.\"\"\"\n"
                              "    logging.info('legacy_total replaced')\n"
                              "    # legacy_total counted twice\n"
                              "    return str(grand_total(xs))\n"),
    }
    result, names = _review(make_case(tmp_path / "words", base, head, checks=NO_CHECKS))
    assert names == {"legacy_total": "its definition was removed"}
    search = next(c for c in result.tool_calls if c.tool == "search")
    assert [f"src/pkg/report.py:{n}:" in search.output for n in (7, 8, 9)] == [True] * 3
    assert "config/app.yaml:2:" in search.output
    assert (result.verdict, result.claims, _dangling(result)) == ("KEEP", [], [])


# ---------------------------------------------------------------------------------------------------------------
# Exports: an assignment to `exports.x` defines x; a list of exports names what is defined elsewhere
# ---------------------------------------------------------------------------------------------------------------

JS_TOTALS = ("function legacyTotal(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n\n"
             "exports.legacyTotal = legacyTotal;\nexports.grandTotal = (xs) => xs.length;\n")
JS_REPORT = "const totals = require('./totals');\n\nexports.render = (xs) => totals.legacyTotal(xs);\n"


def test_an_export_assigned_on_head_keeps_the_name_and_a_removed_one_still_required_blocks(tmp_path: Path):
    base: dict[str, str | bytes] = {"lib/totals.js": JS_TOTALS, "lib/report.js": JS_REPORT}
    moved = {"lib/totals.js": ("exports.legacyTotal = (xs) => xs.reduce((a, b) => a + b, 0);\n"
                               "exports.grandTotal = (xs) => xs.length;\n")}
    result, names = _review(make_case(tmp_path / "moved", base, moved, checks=NO_CHECKS))
    assert (names, result.verdict, _dangling(result)) == ({}, "KEEP", [])
    gone = {"lib/totals.js": "exports.grandTotal = (xs) => xs.length;\n"}
    result, names = _review(make_case(tmp_path / "gone", base, gone, checks=NO_CHECKS))
    assert names == {"legacyTotal": "its definition was removed"}
    assert result.verdict == "MODIFY" and [c.status for c in result.claims] == ["validated"]
    assert _dangling(result) == [("legacyTotal", "lib/report.js", 3)]


@pytest.mark.parametrize(("path", "data"), [
    ("tests/fixtures/basic.toml", True), ("tests/unit/fixtures/a/b.json", True), ("pkg/testdata/x.yaml", True),
    ("src/__fixtures__/user.sql", True), ("test/data/settings.ini", True), ("spec/cases.yml", True),
    ("tests/fixtures/conftest_helpers.py", False),    # code in a test folder is code
    ("tests/pyproject.toml", False), ("test/package.json", False),   # what a tool's loader reads
    ("tests/run.sh", False), ("config/app.toml", False), ("src/testing_utils/app.toml", False),
])
def test_what_counts_as_test_data(path: str, data: bool):
    assert is_test_data(path) is data


def test_common_words_are_the_listed_ones_and_short_lowercase_words():
    assert [is_common_word(w) for w in ("line", "Line", "data", "ttl", "row", "beta", "timeout_ms", "maxRetries",
                                        "LINE_WIDTH")] == [True, True, True, True, True, False, False, False, False]
