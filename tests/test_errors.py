"""The error module: one code per error, one exit-status table, the same codes in the docs, no error elsewhere."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from showcause.core import errors
from showcause.core.errors import (
    EXIT_BAD_INPUT,
    EXIT_INCONCLUSIVE,
    EXIT_STATUS,
    InputError,
    Interrupted,
    MalformedAnswer,
    MalformedResponseError,
    ProviderError,
    ProviderTimeoutError,
    ReviewTimeout,
    SandboxUnavailable,
    ShowcauseError,
    exit_status,
)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "showcause"
CLASSES = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, ShowcauseError)]
ELSEWHERE: set[str] = set()   # error classes allowed outside core/errors.py: none


def _documented() -> dict[str, int]:
    """code -> exit, from the table under "## Error codes" in docs/modes.md."""
    text = (ROOT / "docs" / "modes.md").read_text(encoding="utf-8")
    section = text.split("\n## Error codes\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z_]+)` \|.*\| (\d) \|$", section, re.MULTILINE)
    assert rows, "no table of error codes in docs/modes.md"
    codes = [code for code, _ in rows]
    assert len(codes) == len(set(codes)), "a code is documented twice"
    return {code: int(status) for code, status in rows}


def test_every_code_is_declared_once():
    declared = [c.__dict__["code"] for c in CLASSES if "code" in c.__dict__]
    assert len(declared) == len(set(declared)), sorted(declared)
    # A class without a code of its own refines the one it inherits (the same failure, caught more narrowly).
    assert {c.__name__ for c in CLASSES if "code" not in c.__dict__} == {"ProviderTimeoutError", "MalformedAnswer"}


def test_the_docs_the_module_and_the_exit_table_name_the_same_codes():
    codes = {c.code for c in CLASSES}
    assert set(EXIT_STATUS) == codes
    assert _documented() == dict(EXIT_STATUS)


def test_the_hierarchy_drawn_in_the_docstring_is_the_real_one():
    doc = errors.__doc__ or ""
    for cls in CLASSES:
        own = "code" in cls.__dict__
        assert re.search(rf"\b{cls.__name__}\s+{'' if own else re.escape('(')}{cls.code}\b", doc), cls.__name__
    parents = {c.__name__: [b.__name__ for b in c.__bases__] for c in CLASSES if c is not ShowcauseError}
    assert parents["ProviderTimeoutError"] == ["ReviewTimeout", "ProviderError"]
    assert parents["MalformedAnswer"] == ["MalformedResponseError"]
    assert all(issubclass(c, ShowcauseError) for c in CLASSES)
    assert all(c.__name__ in errors.__all__ for c in CLASSES)


def test_no_error_class_is_defined_outside_the_error_module():
    names = {c.__name__ for c in CLASSES}
    elsewhere = []
    for path in SRC.rglob("*.py"):
        if path == SRC / "core" / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    (b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "") in names
                    for b in node.bases):
                elsewhere.append(f"{path.relative_to(SRC)}:{node.name}")
    assert set(elsewhere) == ELSEWHERE, elsewhere
    assert not (SRC / "providers" / "errors.py").exists()


def test_inherited_codes_keep_both_kinds_catchable():
    timeout = ProviderTimeoutError("no response within 1s")
    assert timeout.code == "TIMEOUT" and isinstance(timeout, ReviewTimeout) and isinstance(timeout, ProviderError)
    assert timeout.status is None and "TIMEOUT" in repr(timeout)
    answer = MalformedAnswer("the answer holds no JSON object")
    assert answer.code == "MALFORMED_RESPONSE" and isinstance(answer, MalformedResponseError)
    # A repair turn catches MalformedAnswer only: a body the provider could not parse is never "repaired".
    with pytest.raises(MalformedResponseError):
        try:
            raise MalformedResponseError("unparsable JSON body")
        except MalformedAnswer:
            pytest.fail("a malformed body was taken for a malformed answer")


class _PluginError(ProviderError):
    code = "SOMETHING_A_PLUGIN_MADE_UP"


@pytest.mark.parametrize(("error", "status"), [
    (InputError("bad patch"), EXIT_BAD_INPUT),
    (SandboxUnavailable("no bubblewrap"), EXIT_INCONCLUSIVE),
    (ProviderTimeoutError("slow"), EXIT_INCONCLUSIVE),
    (_PluginError("odd"), EXIT_INCONCLUSIVE),
    (RuntimeError("a bug"), EXIT_INCONCLUSIVE),
    (Interrupted(15), 128 + 15),
])
def test_exit_status_comes_from_the_one_table(error: BaseException, status: int):
    assert exit_status(error) == status
