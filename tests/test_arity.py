"""Changed arity against unchanged call sites, on real snapshots (Python, JavaScript, TypeScript)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.analysis import arity
from showcause.analysis.arity import ArityMismatch, arity_changes
from showcause.service.inputs import open_snapshot

PYPROJECT = '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
GEO = "def area(w, h):\n    return w * h\n"
USE = ("from pkg import geo\n"
       "from pkg.geo import area\n"
       "\n"
       "\n"
       "def report():\n"
       "    a = area(2, 3)\n"
       "    b = geo.area(w=2, h=3)\n"
       "    return a + b\n")
BASE: dict[str, str | bytes] = {"pyproject.toml": PYPROJECT, "src/pkg/__init__.py": "", "src/pkg/geo.py": GEO,
                                "src/pkg/use.py": USE}


def mismatches(tmp_path: Path, base: dict[str, str | bytes], head: dict[str, str | bytes | None]
               ) -> list[ArityMismatch]:
    case = make_case(tmp_path / "c", base, head)
    with open_snapshot(case=case) as snap:
        return arity_changes(snap)


def found(tmp_path: Path, base: dict[str, str | bytes], head: dict[str, str | bytes | None]
          ) -> list[tuple[str, int, str]]:
    return [(m.file, m.line, m.reason) for m in mismatches(tmp_path, base, head)]


def test_required_parameter_added_breaks_unchanged_callers(tmp_path: Path):
    got = mismatches(tmp_path, BASE, {"src/pkg/geo.py": "def area(w, h, d):\n    return w * h * d\n"})
    assert [(m.file, m.line, m.reason) for m in got] == [
        ("src/pkg/use.py", 6, "does not pass `d`, which `area` now requires"),
        ("src/pkg/use.py", 7, "does not pass `d`, which `area` now requires"),
    ]
    first = got[0]
    assert (first.call, first.function, first.defined_at, str(first.old), str(first.new)) == (
        "area(2, 3)", "area", "src/pkg/geo.py:1", "(w, h)", "(w, h, d)")
    assert got[1].call == "geo.area(w=2, h=3)"


def test_required_keyword_only_parameter_added(tmp_path: Path):
    got = mismatches(tmp_path, BASE, {"src/pkg/geo.py": "def area(w, h, *, unit):\n    return w * h\n"})
    assert [(m.file, m.line, m.reason, str(m.new)) for m in got] == [
        ("src/pkg/use.py", 6, "does not pass `unit`, which `area` now requires", "(w, h, *, unit)"),
        ("src/pkg/use.py", 7, "does not pass `unit`, which `area` now requires", "(w, h, *, unit)"),
    ]


def test_parameter_added_with_default_is_compatible(tmp_path: Path):
    assert found(tmp_path, BASE, {"src/pkg/geo.py": "def area(w, h, d=1):\n    return w * h * d\n"}) == []


SCALE = "def scale(x, factor, clamp=False):\n    return x * factor\n"
CALLS = ("from pkg.calc import scale\n"
         "\n"
         "A = scale(1, 2, True)\n"
         "B = scale(1, 2, clamp=True)\n"
         "C = scale(1, 2)\n"
         "D = scale(1)\n")


def test_removed_parameter_still_passed_positionally_or_by_keyword(tmp_path: Path):
    base = {"src/pkg/__init__.py": "", "src/pkg/calc.py": SCALE, "src/pkg/main.py": CALLS}
    got = found(tmp_path, base, {"src/pkg/calc.py": "def scale(x, factor):\n    return x * factor\n"})
    # D already missed `factor` on base: not introduced by the change, not reported.
    assert got == [
        ("src/pkg/main.py", 3, "passes 3 positional arguments, but `scale` now takes at most 2"),
        ("src/pkg/main.py", 4, "passes keyword `clamp`, which `scale` no longer accepts"),
    ]


def test_kwargs_swallows_a_removed_keyword(tmp_path: Path):
    base = {"src/pkg/__init__.py": "", "src/pkg/calc.py": SCALE, "src/pkg/main.py": CALLS}
    got = mismatches(tmp_path, base, {"src/pkg/calc.py": "def scale(x, factor, /, **options):\n    return x\n"})
    assert [(m.file, m.line, m.reason, str(m.new)) for m in got] == [
        ("src/pkg/main.py", 3, "passes 3 positional arguments, but `scale` now takes at most 2",
         "(x, factor, /, **options)")]


def test_calls_on_added_lines_are_the_change_s_own_and_not_reported(tmp_path: Path):
    base = {**BASE, "src/pkg/more.py": "from pkg.geo import area\n\nTOTAL = area(\n    2,\n    3,\n)\n"}
    head: dict[str, str | bytes | None] = {
        "src/pkg/geo.py": "def area(w, h, d):\n    return w * h * d\n",
        "src/pkg/use.py": USE.replace("area(2, 3)", "area(2, 3, 1)").replace("h=3)", "h=3, d=1)"),
        # Touched by the change but still passing two arguments: new code, left to the typecheck and tests.
        "src/pkg/more.py": "from pkg.geo import area\n\nTOTAL = area(\n    2,\n    3,  # height\n)\n"}
    assert found(tmp_path, base, head) == []


def test_same_named_function_in_another_module_is_ambiguous(tmp_path: Path):
    base = {**BASE, "src/pkg/other.py": "def area(w, h):\n    return w + h\n"}
    assert found(tmp_path, base, {"src/pkg/geo.py": "def area(w, h, d):\n    return w * h * d\n"}) == []


def test_a_file_rebinding_the_name_is_skipped(tmp_path: Path):
    base = {**BASE, "src/pkg/local.py": ("from pkg.geo import area\n\n\ndef f(area):\n    return area(1, 2)\n")}
    got = found(tmp_path, base, {"src/pkg/geo.py": "def area(w, h, d):\n    return w * h * d\n"})
    assert [(f, line) for f, line, _ in got] == [("src/pkg/use.py", 6), ("src/pkg/use.py", 7)]


def test_calls_in_comments_docstrings_and_strings_are_not_calls(tmp_path: Path):
    text = ('"""Call it as area(1, 2)."""\n'
            "from pkg.geo import area\n"
            "\n"
            "# area(1, 2) is the old way\n"
            "HELP = 'area(1, 2)'\n"
            "REAL = area(1, 2)\n")
    base = {**BASE, "src/pkg/use.py": text}
    got = found(tmp_path, base, {"src/pkg/geo.py": "def area(w, h, d):\n    return w * h * d\n"})
    assert got == [("src/pkg/use.py", 6, "does not pass `d`, which `area` now requires")]


def test_spread_arguments_at_the_call_are_skipped(tmp_path: Path):
    text = ("from pkg.geo import area\n"
            "\n"
            "DIMS = (1, 2)\n"
            "KW = {'w': 1, 'h': 2}\n"
            "A = area(*DIMS)\n"
            "B = area(**KW)\n"
            "C = area(1, *DIMS[1:])\n"
            "D = area(1, 2)\n")
    base = {**BASE, "src/pkg/use.py": text}
    got = found(tmp_path, base, {"src/pkg/geo.py": "def area(w, h, d):\n    return w * h * d\n"})
    assert got == [("src/pkg/use.py", 8, "does not pass `d`, which `area` now requires")]


BOX = ("class Box:\n"
       "    def size(self, w):\n"
       "        return w\n"
       "\n"
       "    @staticmethod\n"
       "    def norm(x):\n"
       "        return x\n"
       "\n"
       "    def run(self):\n"
       "        return self.size(1) + self.norm(2)\n")


def test_methods_are_resolved_through_self_only(tmp_path: Path):
    base = {"src/pkg/__init__.py": "", "src/pkg/box.py": BOX,
            "src/pkg/app.py": "from pkg.box import Box\n\nX = Box().size(1)\n"}
    head = {"src/pkg/box.py": BOX.replace("size(self, w)", "size(self, w, unit)").replace("norm(x)", "norm(x, y)")}
    got = mismatches(tmp_path, base, head)
    # `Box().size(1)` in app.py: the receiver is not resolved, so it is skipped.
    assert [(m.file, m.line, m.function, m.reason, str(m.new)) for m in got] == [
        ("src/pkg/box.py", 10, "Box.norm", "does not pass `y`, which `Box.norm` now requires", "(x, y)"),
        ("src/pkg/box.py", 10, "Box.size", "does not pass `unit`, which `Box.size` now requires", "(w, unit)"),
    ]


GEO_JS = ("export function area(w, h) {\n"
          "  return w * h;\n"
          "}\n"
          "\n"
          "export const scale = (x, f) => x * f;\n"
          "\n"
          "export function sum(a, b) {\n"
          "  return a + b;\n"
          "}\n"
          "\n"
          "export function pad(s) {\n"
          "  return s;\n"
          "}\n"
          "\n"
          "export function trim(s, n) {\n"
          "  return s.slice(0, n);\n"
          "}\n")
USE_JS = ("import { area, scale, sum, pad, trim } from './geo.js';\n"
          "import * as geo from './geo.js';\n"
          "\n"
          "// area(1) in a comment is no call\n"
          "export const a = area(1, 2);\n"
          "export const b = geo.area(1, 2);\n"
          "export const c = scale(2, 3);\n"
          "export const d = sum(1, 2);\n"
          "export const e = pad('a');\n"
          "export const f = trim('abc', 2);\n"
          "export const g = area(...[1, 2]);\n")


def test_javascript_arity(tmp_path: Path):
    head_js = (GEO_JS.replace("area(w, h)", "area(w, h, d)")
               .replace("(x, f) =>", "(x, f, g = 1) =>")
               .replace("sum(a, b)", "sum(a, b, ...more)")
               .replace("export function pad(s)", "/**\n * @param {string} s\n * @param {{n: number}} [n]\n */\n"
                                                   "export function pad(s, n)")
               .replace("trim(s, n)", "trim(s)").replace("slice(0, n)", "trim()"))
    base = {"web/geo.js": GEO_JS, "web/use.js": USE_JS}
    got = mismatches(tmp_path, base, {"web/geo.js": head_js})
    undefined = "passes 2 arguments, but `area` now expects 3 (`d` would be undefined)"
    assert [(m.file, m.line, m.reason) for m in got] == [
        ("web/use.js", 5, undefined),
        ("web/use.js", 6, undefined),
        ("web/use.js", 10, "passes 2 arguments, but `trim` now takes at most 1 (the extra ones are ignored)"),
    ]
    assert (str(got[0].old), str(got[0].new)) == ("(w, h)", "(w, h, d)")


def test_typescript_optional_and_required_parameters(tmp_path: Path):
    calc = ("export function mul(a: number, b: number): number {\n  return a * b;\n}\n\n"
            "export function div(a: number): number {\n  return a;\n}\n")
    main = "import { mul, div } from './calc.js';\n\nexport const x = mul(1, 2) + div(1);\n"
    head = calc.replace("mul(a: number, b: number)", "mul(a: number, b: number, c?: number)").replace(
        "div(a: number)", "div(a: number, b: number)")
    got = found(tmp_path, {"web/calc.ts": calc, "web/main.ts": main}, {"web/calc.ts": head})
    assert got == [("web/main.ts", 3, "passes 1 argument, but `div` now expects 2 (`b` would be undefined)")]


def test_work_is_capped_deterministically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    text = "from pkg.geo import area\n\n" + "".join(f"V{i} = area({i}, 2)\n" for i in range(5))
    base = {**BASE, "src/pkg/use.py": text}
    monkeypatch.setattr(arity, "MAX_CALL_SITES", 2)
    got = found(tmp_path, base, {"src/pkg/geo.py": "def area(w, h, d):\n    return w * h * d\n"})
    assert [(f, line) for f, line, _ in got] == [("src/pkg/use.py", 3), ("src/pkg/use.py", 4)]


def test_jsdoc_braces_never_closed_hide_nothing_after_them() -> None:
    from showcause.analysis.signatures import definitions
    from showcause.symbols.languages import get_parser

    # The first tag's `{{{` never closes: it marks nothing; the second tag's `{T}` is skipped as its type.
    source = b"/** @param {{{ [a] @param {T} [b] @param  [c] */\nfunction f(a, b, c, d) {}\n"
    [shape] = [d.shape for d in definitions(get_parser("javascript").parse(source).root_node, "javascript").values()
               if d is not None]
    assert (shape.positional, shape.required) == (("a", "b", "c", "d"), 4)
    hostile = b"/** " + b"@param {" * 3000 + b"} [z] */\nfunction g(y, z) {}\n"
    [shape] = [d.shape for d in definitions(get_parser("javascript").parse(hostile).root_node, "javascript").values()
               if d is not None]
    # The one `}` closes the last tag's brace, which then marks [z]; the 2999 tags before it never close.
    assert shape.required == 1
