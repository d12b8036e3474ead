"""Which names other code can reach, and which files and words can hold a real reference to one.

Test data is not configuration the code reads by key (a fixture's words are its test's inputs); a common
English word (`line`, `data`, `value`) is a reference only where it is an identifier in code; and a module
exports what its `__all__` or `module.exports` names, whatever defines it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from showcause.analysis.codetext import file_class, is_data_config
from showcause.symbols import language_for

__all__ = ["exported_names", "imports_module", "is_common_word", "is_loader_file", "is_test_data"]

_FIXTURE_DIRS = frozenset({"fixtures", "fixture", "__fixtures__", "testdata", "test_data", "test-data",
                           "__snapshots__"})
_TEST_DIRS = frozenset({"tests", "test", "__tests__", "spec", "specs", "testing"})
# Files a tool's own loader reads wherever they are: configuration, even inside a test directory.
_LOADER_FILES = frozenset({"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", ".env", "package.json",
                           "tsconfig.json", "jsconfig.json", ".eslintrc.json", ".babelrc", "jest.config.json"})

# Words that name some variable, key or field in almost every project and occur in prose and data
# everywhere: a textual hit of one says nothing about which definition it means.
_COMMON_WORDS = frozenset({
    "action", "address", "amount", "args", "attr", "attrs", "base", "block", "body", "buffer", "cache", "call",
    "callback", "char", "chars", "child", "children", "class", "code", "column", "columns", "config", "content",
    "context", "count", "current", "data", "date", "default", "delta", "dest", "dict", "directory", "each", "element",
    "end", "entries", "entry", "error", "errors", "event", "events", "extra", "field", "fields", "file", "filename",
    "files", "filter", "first", "flag", "flags", "format", "group", "groups", "handler", "header", "headers",
    "height", "host", "index", "info", "input", "item", "items", "iter", "key", "keys", "kind", "label", "last",
    "length", "level", "limit", "line", "lines", "list", "load", "log", "match", "message", "method", "mode", "model",
    "module", "name", "names", "next", "node", "nodes", "number", "object", "offset", "option", "options", "order",
    "other", "output", "owner", "page", "params", "parent", "part", "parts", "path", "paths", "pattern", "point",
    "port", "position", "prefix", "prev", "record", "records", "request", "response", "result", "results", "root",
    "row", "rows", "scope", "section", "size", "source", "start", "state", "status", "step", "stop", "store",
    "string", "suffix", "target", "task", "tasks", "template", "text", "time", "title", "token", "tokens", "total",
    "type", "types", "update", "user", "value", "values", "version", "view", "width", "word", "words"
})

_ALL = re.compile(r"__all__\s*(?:\+=|=|\.extend\(|\.append\()\s*[\[(]?")
_QUOTED_NAME = re.compile(r"""['"]([A-Za-z_][A-Za-z0-9_]*)['"]""")
_JS_EXPORT = re.compile(r"(?<![A-Za-z0-9_$.])(?:module\.)?exports\.([A-Za-z_$][A-Za-z0-9_$]*)\s*=(?!=)")
_JS_EXPORT_OBJECT = re.compile(r"(?<![A-Za-z0-9_$.])module\.exports\s*=\s*\{")
_OBJECT_KEY = re.compile(r"[{,]\s*([A-Za-z_$][A-Za-z0-9_$]*)")
_MAX_LISTS = 16          # `__all__` / `module.exports = {…}` lists read per file
_MAX_LIST_CHARS = 20_000


def is_test_data(path: str) -> bool:
    """A data file of the tests: any file but code under a fixtures directory (`tests/fixtures/`, `testdata/`,
    `__fixtures__/`), or a config-format file under a test directory that no tool's loader reads."""
    if file_class(path) == "code":
        return False
    parts = [p.lower() for p in path.split("/")]
    dirs = set(parts[:-1])
    if dirs & _FIXTURE_DIRS:
        return True
    return bool(dirs & _TEST_DIRS) and is_data_config(path) and parts[-1] not in _LOADER_FILES


def is_common_word(name: str) -> bool:
    """A common English word, or any lowercase one of three letters (`row`, `ttl`): it counts only as an
    identifier."""
    return name.lower() in _COMMON_WORDS or (name.isalpha() and name.islower() and len(name) <= 3)


def _lists(text: str, opener: re.Pattern[str], close: str) -> list[str]:
    out = []
    for i, m in enumerate(opener.finditer(text)):
        if i == _MAX_LISTS:
            break
        end = text.find(close, m.end(), m.end() + _MAX_LIST_CHARS)
        out.append(text[m.end():end if end >= 0 else m.end() + _MAX_LIST_CHARS])
    return out


def exported_names(path: str, text: str) -> tuple[set[str], set[str]]:
    """The names a code file exports by name (`text`: its code text): (the ones it assigns, JavaScript
    `exports.x =` and `module.exports.x =`; the ones it lists, Python `__all__` entries and the keys of
    `module.exports = {…}`). A listed name is defined elsewhere: on head, a list naming what is gone is a
    use of it, not a definition."""
    lang = language_for(path)
    if lang == "python":
        if "__all__" not in text:
            return set(), set()
        return set(), {n for body in _lists(text, _ALL, "]") for n in _QUOTED_NAME.findall(body.split(")", 1)[0])}
    if lang is None or "exports" not in text:
        return set(), set()
    listed = {n for body in _lists(text, _JS_EXPORT_OBJECT, "}") for n in _OBJECT_KEY.findall("{" + body)}
    return set(_JS_EXPORT.findall(text)), listed


def _module_stem(path: str) -> str:
    """How code names the module of a file: its stem, or its directory for a package's `__init__`/`index`."""
    parts = path.split("/")
    stem = parts[-1].split(".", 1)[0]
    return parts[-2] if stem in ("__init__", "index") and len(parts) > 1 else stem


@lru_cache(maxsize=512)
def _import_pattern(language: str, stem: str) -> re.Pattern[str] | None:
    s = re.escape(stem)
    if language == "python":
        return re.compile(rf"^[ \t]*(?:from[ \t]+[\w.]*\b{s}\b[\w.]*[ \t]+import\b"
                          rf"|(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+[^\n]*\b{s}\b)", re.M)
    if language in ("javascript", "typescript", "tsx"):
        return re.compile(rf"""(?:\brequire\s*\(|\bfrom\s*|\bimport\s*\(?)\s*['"][^'"\n]*\b{s}"""
                          r"""(?:/index)?(?:\.[cm]?[jt]sx?)?['"]""")
    return None


def imports_module(path: str, text: str, defining: tuple[str, ...]) -> bool:
    """Whether the file at `path` could reach a name defined only in the files `defining` (all deleted by the
    change): code imports one of their modules. Config, and a language without a pattern here, could."""
    if file_class(path) != "code":   # config names code its own way (a handler registry by name)
        return True
    language = language_for(path) or ""
    for file in defining:
        pattern = _import_pattern(language, _module_stem(file))
        if pattern is None or pattern.search(text):
            return True
    return False


def is_loader_file(path: str) -> bool:
    """A file its tool's own loader reads (setup.cfg, pyproject.toml, tox.ini, package.json …)."""
    return path.rsplit("/", 1)[-1] in _LOADER_FILES
