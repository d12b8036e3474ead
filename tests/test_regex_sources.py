"""No regular expression is built from outside text on the host: every pattern in src/ is a constant, or
interpolates only `re.escape(...)` of a value (a literal, matched without backtracking over its text). Globs
from a repository, a config, a user or a model go through core/globmatch.py instead; this test can fail
(the second test plants a violation)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "showcause"
_RE_CALLS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def _safe(node: ast.expr, constants: set[str]) -> bool:
    """Whether a pattern expression is built only from constants and re.escape(...) of anything."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.IfExp):
        return _safe(node.body, constants) and _safe(node.orelse, constants)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) or (isinstance(v, ast.FormattedValue) and _safe(v.value, constants))
                   for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "escape":
        return True
    if isinstance(node, ast.BinOp):
        return _safe(node.left, constants) and _safe(node.right, constants)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join":
        return all(_safe(a, constants) for a in node.args) if not isinstance(node.args[0], ast.GeneratorExp) \
            else _safe(node.args[0].elt, constants)
    return False


# Where a pattern is a value, and why that value is not outside text.
ALLOWED = {
    "core/triage.py": "_words(*patterns) joins the module's own word lists",
    "bench/decision_casefile.py": "compiles (never matches) a benchmark case's keywords to report a bad one",
}


def _violations(source: str, name: str) -> list[str]:
    tree = ast.parse(source)
    # Names bound (in any scope) to a constant or to a safe expression may be used in patterns: to a fixpoint,
    # since `n = re.escape(x)` makes `f"...{n}..."` safe.
    assigns = [(t.id, n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
               if isinstance(t, ast.Name)]
    constants: set[str] = set()
    while True:
        more = {target for target, value in assigns if target not in constants and _safe(value, constants)}
        unsafe = {target for target, value in assigns if not _safe(value, constants | more)}
        grown = constants | (more - unsafe)
        if grown == constants:
            break
        constants = grown
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RE_CALLS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args
                and not _safe(node.args[0], constants)):
            found.append(f"{name}:{node.lineno}: re.{node.func.attr}({ast.unparse(node.args[0])[:80]})")
    return found


def test_every_pattern_in_src_is_a_constant_or_escaped() -> None:
    found = [v for path in sorted(SRC.rglob("*.py")) if str(path.relative_to(SRC)) not in ALLOWED
             for v in _violations(path.read_text(encoding="utf-8"), str(path.relative_to(SRC)))]
    assert found == []
    for allowed in ALLOWED:   # an entry that no longer needs its exception is removed
        assert _violations((SRC / allowed).read_text(encoding="utf-8"), allowed), allowed


def test_the_check_catches_a_pattern_built_from_a_value() -> None:
    planted = "import re\n\n\ndef f(glob):\n    return re.compile(glob.replace('*', '.*'))\n"
    assert _violations(planted, "x.py") == ["x.py:5: re.compile(glob.replace('*', '.*'))"]
    fine = "import re\n_A = 'a+'\n\n\ndef f(name):\n    return re.search(rf'{_A}{re.escape(name)}', name)\n"
    assert _violations(fine, "y.py") == []
