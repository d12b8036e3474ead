"""Names a change retired, and where head still uses them (the `dangling_reference` artifact).

Only a name other code can reach can be retired: a definition visible beyond one function (a module-level
function, class, constant or assignment; a method or attribute of a class), an export (JavaScript `export`,
`exports.x`, `module.exports`, Python `__all__`), a key of a config file that code on base read (a key of
a JSON/TOML/YAML/INI/.env file that some base code file reads by name: `cfg["key"]`, `cfg.get("key")`,
`options.key`), or a column a migration renames or drops. A local variable or a parameter is never
retired, nor a name that only a removed import bound.

Such a name is retired when it occurs in the change's removed lines, occurs fewer times in code and config
on head than on base, has no such definition on head (an `__all__` entry or a `module.exports = {…}` key
defines nothing: on head it is a use), and its defining side is gone: its definition or export was
removed, or a config line holding it as a key was removed, or no code on head reads the key any more. The
last two keep a key that the change merely stopped reading in one place (it is still read elsewhere) from
counting as retired.

A use, counted on both trees and reported on head, is a real reference in its file's language: in code, an
occurrence outside comments, docstrings and prose strings; in a config file of keys and values, a key or a
whole value (`handler = "rotate_logs"`), never a word among others in a value; never anything in test data
(`tests/fixtures/`, `testdata/`, the config-format files of test directories). A common word (`line`,
`data`, `value`) counts only in code, as an identifier, a string that names something (`cfg["line"]`,
`getattr(x, "line")`) or SQL, and in SQL files; a name retired only as a method or an attribute counts
only where it is reached as one (`obj.name`, a string such as `getattr(obj, "name")`). A name whose every
definition was in a file the change deleted (a removed `examples/` script) is used elsewhere only where its
module is imported (config names code its own way, a handler registry by name): a same-named local
function, parameter or attribute elsewhere is another thing.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from tree_sitter import Tree

from showcause.analysis.codetext import code_text, config_keys, file_class, is_data_config, name_pattern
from showcause.analysis.reach import exported_names, imports_module, is_common_word, is_loader_file, is_test_data
from showcause.analysis.scope import local_lines, parse_for_scope
from showcause.core.analysis_budget import AnalysisBudget
from showcause.core.artifacts import Artifact, Shown
from showcause.core.rg import rg_files_with_words, rg_words_in
from showcause.snapshot import Snapshot
from showcause.symbols import SymbolHit, SymbolIndex, language_for
from showcause.symbols.pool import PARALLEL_MIN_FILES

__all__ = ["RetiredName", "Retirement", "dangling_artifacts"]

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_WORD = re.compile(r"[A-Za-z0-9_$]+")
_MIN_LEN = 3
_HISTORY = frozenset({"migrations", "migration", "migrate", "alembic"})
_MIGRATION = re.compile(r"(?i)\b(?:rename\s+(?:column\s+)?([A-Za-z_][A-Za-z0-9_]*)\s+to\b"
                        r"|drop\s+column\s+(?:if\s+exists\s+)?([A-Za-z_][A-Za-z0-9_]*)"
                        r"|alter\s+table\s+(?:if\s+exists\s+)?([A-Za-z_][A-Za-z0-9_]*)\s+rename\s+to\b)")
_SQL_WORDS = frozenset({"table", "column", "constraint", "index", "exists", "if"})
# Words that occur in almost any removed line and can never name a project symbol worth tracking.
_COMMON = frozenset({
    "and", "as", "assert", "async", "await", "break", "case", "catch", "class", "const", "continue", "def",
    "default", "del", "delete", "do", "elif", "else", "except", "export", "extends", "false", "finally", "for",
    "from", "function", "global", "if", "import", "in", "instanceof", "is", "lambda", "let", "new", "none",
    "nonlocal", "not", "null", "of", "or", "pass", "raise", "return", "self", "static", "super", "switch",
    "this", "throw", "true", "try", "typeof", "undefined", "var", "void", "while", "with", "yield", "None",
    "True", "False", "cls", "args", "kwargs", "int", "str", "bool", "float", "list", "dict", "set", "tuple",
    "bytes", "object", "type", "string", "number", "boolean", "any", "unknown", "never", "print", "len", "range",
})


_MEMBER_ONLY = frozenset({"method", "property"})


@dataclass(frozen=True)
class RetiredName:
    name: str
    base_count: int
    head_count: int
    why: str            # which defining side is gone
    member: bool = False  # retired as a method or attribute only: a use reaches it as one
    defining: tuple[str, ...] = ()   # base files of its definitions when the change deleted all of them


@lru_cache(maxsize=1024)
def _member_pattern(name: str) -> re.Pattern[str]:
    """A use of an attribute: `.name`, `?.name`, or a string naming it (`getattr(x, "name")`, `"Cls.name"`)."""
    return re.compile(rf"(?:\.\s*|['\"]){re.escape(name)}(?![A-Za-z0-9_$])")


@lru_cache(maxsize=1024)
def _config_pattern(name: str) -> re.Pattern[str]:
    """A name in a config line: never part of a dashed word (`pre-commit` names no `commit`)."""
    return re.compile(rf"(?<![A-Za-z0-9_$-]){re.escape(name)}(?![A-Za-z0-9_$-])")


@lru_cache(maxsize=1024)
def _read_pattern(name: str, by_string: bool) -> re.Pattern[str]:
    """Code reading a key by name: a string of it that is not a dict literal's key (`"name":`), or (unless
    `by_string`) an attribute `.name`."""
    n = re.escape(name)
    string = rf"(['\"]){n}\1(?!\s*:)"
    return re.compile(string if by_string else rf"\.\s*{n}(?![A-Za-z0-9_$])|{string}")


@dataclass
class _Counts:
    total: Counter[str]                  # real references per name in code and config
    in_code: Counter[str]                # in code only
    left_out: list[str]                  # files holding some name that the caps or the budget left out
    keys: set[str] = field(default_factory=set)       # keys of a config file of keys and values
    exported: set[str] = field(default_factory=set)   # assigned as exports: `exports.x = …`
    listed: set[str] = field(default_factory=set)     # listed as exports: `__all__`, `module.exports = {…}`
    read_by_string: set[str] = field(default_factory=set)   # of `read`: a lookup's string (`cfg["name"]`)
    read: set[str] = field(default_factory=set)       # named by code as an attribute or in a string


def _counted(rel: str, word: str) -> bool:
    """Whether an occurrence of `word` in the (code or strict) text of `rel` can be a reference: a common
    word only in code (its strict text) or SQL."""
    return not is_common_word(word) or file_class(rel) == "code" or rel.lower().endswith(".sql")


@dataclass
class Retirement:
    """Lazy analysis of one snapshot; `uses(file, line)` is what the ledger asks for every shown line.

    Bounded by `budget` (showcause.core.analysis_budget): files it leaves out are recorded there, a name a left-out
    head file may hold is never retired (its uses and definitions there are unknown), and once the budget
    runs out no more names are decided."""

    snapshot: Snapshot
    timeout: float = 20.0
    worker_min_files: int = PARALLEL_MIN_FILES  # the policy's symbol_worker_min_files
    budget: AnalysisBudget = field(default_factory=AnalysisBudget)
    _names: dict[str, RetiredName] | None = field(default=None, repr=False)
    _head_lines: dict[str, list[str] | None] = field(default_factory=dict, repr=False)
    _head_strict: dict[str, list[str] | None] = field(default_factory=dict, repr=False)
    _base_keys: dict[str, dict[int, set[str]]] = field(default_factory=dict, repr=False)
    # Parsed definition files, shared by all the names whose definitions they hold.
    _trees: dict[tuple[Path, str], Tree | None] = field(default_factory=dict, repr=False)
    # The names are computed beside the test processes and asked for by the calls that show lines: once.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def _text(self, root: Path, rel: str, strict: bool = False) -> tuple[str | None, bool]:
        """(code text or None, whether a cap or the budget left the file out); `strict`: see `code_text`."""
        path = root / rel
        try:
            if path.is_symlink() or not path.is_file() or file_class(rel) not in ("code", "config"):
                return None, False
            if self.budget.too_big(rel, path.stat().st_size) or self.budget.out_of_time(rel):
                return None, True
            data = path.read_bytes()
        except OSError:
            return None, False
        text = code_text(rel, data, self.budget, strict=strict)
        # No text for a code file that is not binary: its parse gave up (and the budget says so).
        return text, text is None and language_for(rel) is not None and b"\x00" not in data[:8192]

    def _candidates(self) -> dict[str, list[tuple[str, int]]]:
        found: dict[str, list[tuple[str, int]]] = {}
        for rel, change in self.snapshot.diff.files.items():
            if not change.removed or change.binary:
                continue
            text, _ = self._text(self.snapshot.base, rel)
            if text is None:
                continue
            lines = text.split("\n")
            for number in change.removed:
                if number - 1 < len(lines):
                    for tok in set(_IDENT.findall(lines[number - 1])):
                        if len(tok) >= _MIN_LEN and tok not in _COMMON and not tok.isdigit():
                            found.setdefault(tok, []).append((rel, number))
        return found

    def _counts(self, root: Path, names: list[str], index: SymbolIndex) -> _Counts:
        counts = _Counts(Counter(), Counter(), [])
        wanted = set(names)
        unindexed = index.unindexed
        for rel in rg_files_with_words(root, names, timeout=self.timeout):
            if is_test_data(rel):   # a test's input: no use of anything, nor a key the code reads
                continue
            if rel in unindexed:   # its definitions are unknown
                self.budget.skip(rel, unindexed[rel])
                counts.left_out.append(rel)
            text, left_out = self._text(root, rel)
            if text is None:
                if left_out and rel not in unindexed:
                    counts.left_out.append(rel)
                continue
            # Whole-word occurrences of a name are the maximal word runs equal to it (what `name_pattern`
            # matches): one pass over the text, and over its distinct words, instead of one per name.
            found = {w: n for w, n in Counter(_WORD.findall(text)).items() if w in wanted}
            is_code = file_class(rel) == "code"
            if is_code and any(is_common_word(w) for w in found):
                strict, cut = self._text(root, rel, strict=True)
                if strict is None and cut:   # its identifiers are unknown
                    counts.left_out.append(rel)
                idents = Counter(_WORD.findall(strict or ""))
                found.update({w: idents[w] for w in found if is_common_word(w)})
            for word, n in found.items():
                if _counted(rel, word):
                    counts.total[word] += n
                    if is_code:
                        counts.in_code[word] += n
            if is_data_config(rel):
                counts.keys.update(w for keys in config_keys(rel, text).values() for w in keys if w in found)
            elif is_code:
                assigned, listed = exported_names(rel, text)
                counts.exported.update(assigned & wanted)
                counts.listed.update(listed & wanted)
                # How code reads a key: `cfg["name"]`, `cfg.get('name')`, `bus.on("name")`, `options.name`;
                # a dict literal's own key (`{"devpi": …}`, a Sphinx intersphinx entry) reads nothing, nor
                # does a parameter or a local variable of that name.
                counts.read.update(w for w in found if _read_pattern(w, False).search(text))
                # Strictly: in the strings left in the strict text, the ones a lookup takes (`cfg["url"]`,
                # `cfg.get("url")`), not any string (`@click.argument("url")` names a CLI parameter).
                named = [w for w in found if w in counts.read]
                strict_text = self._text(root, rel, strict=True)[0] if named else None
                counts.read_by_string.update(w for w in named if _read_pattern(w, True).search(strict_text or ""))
        return counts

    @property
    def names(self) -> dict[str, RetiredName]:
        with self._lock:
            if self._names is None:
                with self.budget.measure():
                    self._names = self._compute()
            return self._names

    def _migrated(self) -> set[str]:
        """Names an added SQL line renames or drops (`RENAME [COLUMN] x TO y`, `DROP [COLUMN] x`).

        Migrations are append-only: the old name stays in the migration that created it, so the count
        rule cannot see the retirement; the explicit statement is the defining side going away.
        """
        out: set[str] = set()
        for rel, change in self.snapshot.diff.files.items():
            if rel.lower().endswith(".sql"):
                for text in change.added.values():
                    out.update(next(g for g in m.groups() if g) for m in _MIGRATION.finditer(text))
        return {n for n in out if len(n) >= _MIN_LEN and n.lower() not in _SQL_WORDS}

    def _compute(self) -> dict[str, RetiredName]:
        candidates = self._candidates()
        migrated = self._migrated()
        for name in migrated:
            candidates.setdefault(name, [])
        if not candidates:
            return {}
        names, snap, budget = sorted(candidates), self.snapshot, self.budget
        # Whichever tree is indexed second is derived from the other: only the changed files are read.
        least = self.worker_min_files
        base_index = SymbolIndex.for_tree(snap.base, sibling=snap.head, changed=snap.diff.files, budget=budget,
                                          worker_min_files=least)
        head_index = SymbolIndex.for_tree(snap.head, sibling=snap.base, changed=snap.diff.files, budget=budget,
                                          worker_min_files=least)
        base, head = self._counts(snap.base, names, base_index), self._counts(snap.head, names, head_index)
        if budget.out_of_time(f"the retired-name check of {len(names)} candidate name(s)"):
            return {}   # counts cut short could retire a name still in use
        out: dict[str, RetiredName] = {}
        for i, name in enumerate(names):
            if budget.out_of_time(f"the retired-name check of {len(names) - i} candidate name(s)"):
                break
            if name in head.exported or self._reach(snap.head, head_index.lookup(name, "definition"), name, True):
                continue
            kinds: set[str] = set()
            files: set[str] = set()
            if name in migrated:
                why = "a migration of the change renames or drops it"
            elif head.total[name] >= base.total[name]:
                continue
            elif kinds := self._reach(snap.base, base_index.lookup(name, "definition"), name, False, files):
                why = "its definition was removed"
            elif name in base.exported or name in base.listed:
                why = "its export was removed"
            elif any(self._removed_key(rel, line, name, base) for rel, line in candidates[name]):
                why = "a config line holding it was removed"
            elif name in base.read and name in base.keys and head.in_code[name] == 0:
                why = "no code on head reads it any more"
            else:
                continue
            member = bool(kinds) and kinds <= _MEMBER_ONLY and name not in base.keys
            # Definitions only in files the change deleted (a removed examples/ script) are reached from
            # elsewhere only through an import of their module: a same-named local elsewhere is another thing.
            gone = tuple(sorted(files)) if files and not any((snap.head / f).exists() for f in files) else ()
            out[name] = RetiredName(name, base.total[name], head.total[name], why, member, gone)
        held = rg_words_in(snap.head, sorted(out), head.left_out, timeout=self.timeout) if out else set()
        return {name: r for name, r in out.items() if name not in held}

    def _removed_key(self, rel: str, line: int, name: str, base: _Counts) -> bool:
        """Whether a removed base line of a config file held `name` as a key that code on base read: a key of
        a file of keys and values (`max_age = 5`, not `note = "max_age"`) that code reads by name, or any
        word of a line of SQL, markup or a script that code names."""
        if file_class(rel) != "config" or is_test_data(rel):
            return False
        if not is_data_config(rel):
            return base.in_code[name] > 0
        # A tool's own file (setup.cfg, pyproject.toml, tox.ini …) is read by its tool: the project's code
        # reads one of its keys only through a lookup by name (`cfg["url"]`), never as any object's `.url`.
        if name not in (base.read_by_string if is_loader_file(rel) else base.read):
            return False
        if rel not in self._base_keys:
            text, _ = self._text(self.snapshot.base, rel)
            self._base_keys[rel] = config_keys(rel, text) if text is not None else {}
        return name in self._base_keys[rel].get(line, set())

    def _reach(self, root: Path, hits: list[SymbolHit], name: str, imports: bool,
               files: set[str] | None = None) -> set[str]:
        """The kinds of the definitions of `name` that other code can reach: an attribute (`self.x = …`) or
        an export wherever it is, anything else outside a function. Never a parameter, nor an import unless
        `imports` (on head, where a module-level import still binds the name)."""
        found: set[str] = set()
        lines: dict[str, dict[int, set[str]]] = {}
        for h in hits:
            if h.detail == "parameter" or (h.detail == "import" and not imports):
                continue
            if h.detail in ("property", "export"):
                found.add(h.detail)
                if files is not None:
                    files.add(h.file)
            else:
                lines.setdefault(h.file, {}).setdefault(h.line, set()).add(h.detail)
        for file, by_line in lines.items():
            key = (root, file)
            if key not in self._trees:
                try:
                    data = (root / file).read_bytes()
                except OSError:
                    continue
                self._trees[key] = parse_for_scope(file, data, self.budget)
            tree = self._trees[key]
            local = local_lines(tree, name, by_line) if tree is not None else set()
            reached = [d for line, details in by_line.items() if line not in local for d in details]
            found.update(reached)
            if reached and files is not None:
                files.add(file)
        return found

    def uses(self, file: str, line: int | None) -> list[RetiredName]:
        """Retired names used at a head location outside the change's added lines, in code or config.

        Migrations are history: the one that created a column still names it after a later migration
        renames it, and it must not be edited, so an unchanged migration file is never a use. Test data is
        a test's input, never a use. A location reached through a symlink (`conf/settings.json` with
        `conf -> .`) is never a use either: under another name the change's own added lines would look
        unchanged.
        """
        if line is None or not self.names or self.snapshot.diff.is_added(file, line) or is_test_data(file):
            return []
        root = os.path.realpath(self.snapshot.head)
        if os.path.realpath(os.path.join(root, file)) != os.path.join(root, file):
            return []
        if _HISTORY.intersection(file.split("/")[:-1]) and file not in self.snapshot.diff.files:
            return []
        row = self._head_row(file, line, self._head_lines, False)
        if row is None:
            return []
        code = file_class(file) == "code"
        out = []
        for n, r in sorted(self.names.items()):
            if n not in row or not _counted(file, n) or (r.defining and not self._imports(file, r.defining)):
                continue
            text = self._head_row(file, line, self._head_strict, True) if is_common_word(n) else row
            pattern = _member_pattern(n) if r.member else name_pattern(n) if code else _config_pattern(n)
            if text is not None and pattern.search(text):
                out.append(r)
        return out

    def _imports(self, file: str, defining: tuple[str, ...]) -> bool:
        """Through the head file's code text `uses` already read (import lines and module paths are code)."""
        lines = self._head_lines.get(file) or []
        return imports_module(file, "\n".join(lines), defining)

    def _head_row(self, file: str, line: int, rows: dict[str, list[str] | None], strict: bool) -> str | None:
        """Line `line` of the head file's code text (`strict`: its strict text, for code), read once."""
        if file not in rows:
            with self.budget.measure():
                text, _ = self._text(self.snapshot.head, file, strict=strict)
            rows[file] = text.split("\n") if text is not None else None
        lines = rows[file]
        return lines[line - 1] if lines is not None and 0 < line <= len(lines) else None


def dangling_artifacts(retirement: Retirement, shown: list[Shown]) -> list[Artifact]:
    """One `dangling_reference` per shown head line that still uses a retired name."""
    out: list[Artifact] = []
    for s in shown:
        for r in retirement.uses(s.file, s.line):
            detail = (f"`{r.name}` is retired by the change ({r.why}; {r.base_count} uses in code and config "
                      f"on base, {r.head_count} on head) but still used here")
            out.append(Artifact("dangling_reference", s.file, s.line, detail, s.line_text, subject=r.name))
    return out
