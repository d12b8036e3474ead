"""Whether a test is still defined in its file: a test deleted or renamed by the change is absent, which is
never a failure, while a test still defined that gave no result is an error of head.

A Python test is looked up by its full id (`file::Class::test`), read as data with `ast`: a method of that
name in another class does not keep a deleted one alive. A class's bases are followed when the file
defines them or they are unittest's own test cases (which define no tests); a base from anywhere else, a
class decorator, a metaclass, `setattr` or `globals()` may add tests at run time, so the source cannot say
and the name's text decides. The text check matches the name as a whole identifier, never inside a longer
one (`test_default` is not in `test_default_renamed`). A JavaScript test is defined while its title path (its
describe blocks' titles, then its own) is a test of the file as tree-sitter reads it; one that was a test of the
file on base and is not on head was renamed or deleted; a title made at run time leaves it to the name's text.
"""

from __future__ import annotations

import ast
from pathlib import Path

from showcause.tools.jstitles import title_parts, title_paths

__all__ = ["defined", "file_tests", "named_in", "python_tests"]

_MAX_SOURCE = 2_000_000   # bytes of a test file read to tell a deleted test from a lost one
# Bases that define no tests: unittest's test cases, imported from unittest (or named through it).
_UNITTEST_BASES = frozenset({"TestCase", "IsolatedAsyncioTestCase"})


def named_in(tree: Path, test: str, base: Path | None = None) -> bool:
    """Whether the test `file::…::name` (any parametrization) is still defined in its file on `tree`; `base`, the
    tree before the change, tells a JavaScript test whose title was a literal and is gone (renamed, deleted)."""
    file = test.split("::", 1)[0]
    function = test.split("[", 1)[0]
    name = function.rsplit("::", 1)[-1].rsplit(" > ", 1)[-1]
    source = _read(tree / file)
    if source is None:
        return False
    if file.endswith(".py") and " > " not in test:
        found = defined(source, function.split("::")[1:])
        if found is not None:
            return found
    elif not file.endswith(".py") and "::" in test:
        titles = tuple(test.split("::", 1)[1].split(" > "))
        now = title_parts(file, source)
        if now is not None and titles in now[0]:
            return True
        before = _read(base / file) if base is not None else None
        earlier = title_parts(file, before) if before is not None else None
        # Its describe blocks and title were written out on base, and are not on head, where no title made at
        # run time could stand for it (a loop of tests in another describe block cannot).
        if now is not None and earlier is not None and titles in earlier[0] and \
                not any(titles[: len(m)] == m for m in now[1]):
            return False
    return _has_word(source, name.encode())


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(_MAX_SOURCE)
    except OSError:
        return None


def _has_word(source: bytes, word: bytes) -> bool:
    """`word` occurs in `source` with no identifier character right before or after it."""
    if not word:
        return False
    start = source.find(word)
    while start >= 0:
        end = start + len(word)
        before = source[start - 1 : start]
        after = source[end : end + 1]
        if not (before.isalnum() or before == b"_" or before[:1] >= b"\x80") and \
                not (after.isalnum() or after == b"_" or after[:1] >= b"\x80"):
            return True
        start = source.find(word, start + 1)
    return False


def defined(source: bytes, path: list[str]) -> bool | None:
    """Whether the class chain and function `path` are defined in `source`; None when the source cannot say
    (it does not parse, the scope binds names at run time, the class may gain the test from a base, a
    decorator or a metaclass the file does not define, or the module sets attributes or globals by name)."""
    module = _module(source)
    if module is None:
        return None
    *classes, function = path
    body, owner = module, None
    for name in classes:
        hit = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if hit is None:
            return None if _binds(body, name) else False
        body, owner = hit.body, hit
    if owner is None:
        if any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function for n in module):
            return True
        return None if _binds(module, function) else False
    return _in_class(module, owner, function, set())


def _module(source: bytes) -> list[ast.stmt] | None:
    """The module's statements; None when it does not parse or calls the builtins `setattr` or `globals` (then
    what it defines is decided at run time). A method of that name, `monkeypatch.setattr(...)` in a test,
    defines nothing in the file (packaging's tests use it in every class)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "globals")
           for n in ast.walk(tree)):
        return None
    return tree.body


def _in_class(module: list[ast.stmt], cls: ast.ClassDef, name: str, seen: set[str]) -> bool | None:
    """Whether class `cls` defines or inherits method `name`; None when a base is not this file's to read."""
    if any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name for n in cls.body):
        return True
    if _binds(cls.body, name) or cls.keywords or cls.decorator_list:
        return None
    seen.add(cls.name)
    for base in cls.bases:
        if _unittest_base(module, base):
            continue
        local = _local_class(module, base)
        if local is None or local.name in seen:
            return None
        found = _in_class(module, local, name, seen)
        if found is not False:
            return found
    return False


def _local_class(module: list[ast.stmt], base: ast.expr) -> ast.ClassDef | None:
    """The class this module defines that `base` names (a plain name), or None."""
    if not isinstance(base, ast.Name):
        return None
    return next((n for n in module if isinstance(n, ast.ClassDef) and n.name == base.id), None)


def _unittest_base(module: list[ast.stmt], base: ast.expr) -> bool:
    """`unittest.TestCase`, or a `TestCase` that the module imports from unittest (and does not rebind)."""
    if isinstance(base, ast.Attribute):
        return isinstance(base.value, ast.Name) and base.value.id == "unittest" and base.attr in _UNITTEST_BASES
    if not isinstance(base, ast.Name) or base.id not in _UNITTEST_BASES:
        return False
    bindings = [n for n in module if (n.name == base.id if isinstance(n, ast.ClassDef) else _binds([n], base.id))]
    if len(bindings) != 1 or not isinstance(bindings[0], ast.ImportFrom):
        return False
    found = bindings[0]
    return found.module == "unittest" and any(a.name == base.id and a.asname is None for a in found.names)


def _binds(body: list[ast.stmt], name: str) -> bool:
    """Whether a statement of `body` binds `name` some other way: an assignment, an import, a star import."""
    for node in body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                return True
        elif isinstance(node, ast.Import | ast.ImportFrom) and any(
                (a.asname or a.name).split(".")[0] in (name, "*") for a in node.names):
            return True
    return False


def python_tests(source: bytes) -> set[str] | None:
    """The tests a Python test file defines as pytest finds them by default, as `Class::method` and `function`
    paths (no parametrization); None when the source cannot say (it does not parse, sets names at run time, or
    a class may gain tests from a base, decorator or metaclass the file does not define)."""
    module = _module(source)
    if module is None:
        return None
    found: set[str] = {n.name for n in module
                       if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")}
    for cls in (n for n in module if isinstance(n, ast.ClassDef)):
        collected = _collected(module, cls, set())
        if collected is False:
            continue
        methods = _class_tests(module, cls, set()) if collected else None
        if methods is None:
            return None
        found.update(f"{cls.name}::{m}" for m in methods)
    return found


def _collected(module: list[ast.stmt], cls: ast.ClassDef, seen: set[str]) -> bool | None:
    """Whether pytest collects `cls` by default: a `Test*` class, or a unittest test case; None when a base
    from elsewhere may make it one."""
    if cls.name.startswith("Test") or any(_unittest_base(module, b) for b in cls.bases):
        return True
    seen = seen | {cls.name}
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        local = _local_class(module, base)
        found = _collected(module, local, seen) if local is not None and local.name not in seen else None
        if found is not False:
            return found
    return False


def _class_tests(module: list[ast.stmt], cls: ast.ClassDef, seen: set[str]) -> set[str] | None:
    """The `test*` methods `cls` defines or inherits from bases this file defines; None when a base, decorator
    or metaclass from elsewhere may add some."""
    if cls.keywords or cls.decorator_list or any(isinstance(n, ast.ClassDef) for n in cls.body):
        return None   # a nested class's tests are not read here: the file cannot say
    own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
           and n.name.startswith("test")}
    seen = seen | {cls.name}
    for base in cls.bases:
        if _unittest_base(module, base) or (isinstance(base, ast.Name) and base.id == "object"):
            continue
        local = _local_class(module, base)
        if local is None or local.name in seen:
            return None
        inherited = _class_tests(module, local, seen)
        if inherited is None:
            return None
        own |= inherited
    return own


def file_tests(tree: Path, file: str) -> set[str] | None:
    """The ids (`file::…`, no parametrization) of the tests `file` defines on `tree`, read as data; None when
    the source cannot say (then only running it tells)."""
    source = _read(tree / file)
    if source is None:
        return None
    if file.endswith(".py"):
        names = python_tests(source)
        return None if names is None else {f"{file}::{n}" for n in names}
    titles = title_paths(file, source)
    return None if titles is None else {f"{file}::{' > '.join(t)}" for t in titles}
