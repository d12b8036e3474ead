"""Names a change retired, and where head still uses them (the `dangling_reference` artifact).

A name is retired when it occurs in the change's removed lines, occurs fewer times in code and config
on head than on base, has no definition in code on head, and its defining side is gone: it had a
definition in code on base, or a config file line holding it was removed, or no code on head mentions
it any more. The last three keep a key or call that the change merely stopped using in one place (it
is still defined or read elsewhere) from counting as retired.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Tree

from showcause.analysis.codetext import code_text, file_class, name_pattern
from showcause.analysis.scope import local_lines, parse_for_scope
from showcause.core.analysis_budget import AnalysisBudget
from showcause.core.artifacts import Artifact, Shown
from showcause.sandbox.rg import rg_files_with_words, rg_words_in
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


@dataclass(frozen=True)
class RetiredName:
    name: str
    base_count: int
    head_count: int
    why: str            # which defining side is gone


@dataclass
class _Counts:
    total: Counter[str]                  # occurrences per name in code and config
    in_code: Counter[str]                # in code only
    left_out: list[str]                  # files holding some name that the caps or the budget left out


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
    # Parsed definition files, shared by all the names whose definitions they hold.
    _trees: dict[tuple[Path, str], Tree | None] = field(default_factory=dict, repr=False)

    def _text(self, root: Path, rel: str) -> tuple[str | None, bool]:
        """(code text or None, whether a cap or the budget left the file out)."""
        path = root / rel
        try:
            if path.is_symlink() or not path.is_file() or file_class(rel) not in ("code", "config"):
                return None, False
            if self.budget.too_big(rel, path.stat().st_size) or self.budget.out_of_time(rel):
                return None, True
            data = path.read_bytes()
        except OSError:
            return None, False
        text = code_text(rel, data, self.budget)
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
            is_code = file_class(rel) == "code"
            for word, n in Counter(_WORD.findall(text)).items():
                if word in wanted:
                    counts.total[word] += n
                    if is_code:
                        counts.in_code[word] += n
        return counts

    @property
    def names(self) -> dict[str, RetiredName]:
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
            if self._module_level(snap.head, head_index.lookup(name, "definition"), name):
                continue
            if name in migrated:
                why = "a migration of the change renames or drops it"
            elif head.total[name] >= base.total[name]:
                continue
            elif self._module_level(snap.base, base_index.lookup(name, "definition"), name):
                why = "its definition was removed"
            elif any(file_class(rel) == "config" for rel, _ in candidates[name]):
                why = "a config line holding it was removed"
            elif head.in_code[name] == 0:
                why = "no code on head reads it any more"
            else:
                continue
            out[name] = RetiredName(name, base.total[name], head.total[name], why)
        held = rg_words_in(snap.head, sorted(out), head.left_out, timeout=self.timeout) if out else set()
        return {name: r for name, r in out.items() if name not in held}

    def _module_level(self, root: Path, hits: list[SymbolHit], name: str) -> bool:
        """Whether any definition is visible beyond one function (locals never retire a name)."""
        lines: dict[str, set[int]] = {}
        for h in hits:
            lines.setdefault(h.file, set()).add(h.line)
        for file, wanted in lines.items():
            key = (root, file)
            if key not in self._trees:
                try:
                    data = (root / file).read_bytes()
                except OSError:
                    continue
                self._trees[key] = parse_for_scope(file, data, self.budget)
            tree = self._trees[key]
            if tree is None or not wanted <= local_lines(tree, name, wanted):
                return True
        return False

    def uses(self, file: str, line: int | None) -> list[RetiredName]:
        """Retired names used at a head location outside the change's added lines, in code or config.

        Migrations are history: the one that created a column still names it after a later migration
        renames it, and it must not be edited, so an unchanged migration file is never a use. A location
        reached through a symlink (`conf/settings.json` with `conf -> .`) is never a use either: under
        another name the change's own added lines would look unchanged.
        """
        if line is None or not self.names or self.snapshot.diff.is_added(file, line):
            return []
        root = os.path.realpath(self.snapshot.head)
        if os.path.realpath(os.path.join(root, file)) != os.path.join(root, file):
            return []
        if _HISTORY.intersection(file.split("/")[:-1]) and file not in self.snapshot.diff.files:
            return []
        if file not in self._head_lines:
            with self.budget.measure():
                text, _ = self._text(self.snapshot.head, file)
            self._head_lines[file] = text.split("\n") if text is not None else None
        lines = self._head_lines[file]
        if lines is None or not 0 < line <= len(lines):
            return []
        row = lines[line - 1]
        return [r for n, r in sorted(self.names.items()) if n in row and name_pattern(n).search(row)]


def dangling_artifacts(retirement: Retirement, shown: list[Shown]) -> list[Artifact]:
    """One `dangling_reference` per shown head line that still uses a retired name."""
    out: list[Artifact] = []
    for s in shown:
        for r in retirement.uses(s.file, s.line):
            detail = (f"`{r.name}` is retired by the change ({r.why}; {r.base_count} uses in code and config "
                      f"on base, {r.head_count} on head) but still used here")
            out.append(Artifact("dangling_reference", s.file, s.line, detail, s.line_text, subject=r.name))
    return out
