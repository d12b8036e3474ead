"""Unchanged call sites that no longer fit a function whose parameter list the change altered.

For each function defined in a file the change modified whose parameters differ between base and head
(tree-sitter on both trees, see :mod:`showcause.analysis.signatures`), the calls on head outside the
change's added lines are checked against both signatures: a call that fit the base signature and does
not fit the head one is an :class:`ArityMismatch`. It is a warning, never a blocking artifact (pyright
and tsc already turn real arity errors into `new_type_error`); it also covers projects without a
typechecker.

Resolution is conservative, so that what is reported really calls that function:
* the name has exactly one definition in the code of its language family in each tree (imports, exports
  and parameters aside), in the same changed file;
* a call is `name(...)` in the defining file or in a file importing the name unaliased from the
  defining module, or `mod.name(...)` where `mod` is an import of that module; a method only as
  `self.name(...)`/`cls.name(...)` (Python, bound parameter dropped) or `this.name(...)` (JS) directly
  inside a method of its own class. A file binding the name any other way (assignment, parameter,
  another import, `import *`) is skipped;
* a call spreading arguments (`*xs`, `**kw`, `...xs`) cannot be counted and is skipped, and so is a call
  with any line among the added lines (the change updated it).
JavaScript never raises on arity, but a call passing fewer arguments than its last required parameter
(which becomes undefined) or more than the function takes (silently ignored) is still reported.
Work is bounded by MAX_CHANGED_FILES, MAX_FUNCTIONS (in file, line order), MAX_CALLER_FILES and
MAX_CALL_SITES (calls naming a checked function), and by the review's analysis budget (files whose parse
gave up are skipped; once the budget ran out the probe stops, and the budget records what it skipped).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node, Tree

from showcause.analysis.signatures import Definition, Shape, call_arguments, definitions, misfit, receiver_shape
from showcause.core.analysis_budget import AnalysisBudget
from showcause.snapshot import Snapshot
from showcause.symbols import SymbolIndex, language_for
from showcause.symbols.languages import ParseTimeout, parse_within, read_source, resolve_python_import
from showcause.symbols.pool import PARALLEL_MIN_FILES

__all__ = ["MAX_CALLER_FILES", "MAX_CALL_SITES", "MAX_CHANGED_FILES", "MAX_FUNCTIONS", "ArityMismatch", "Shape",
           "arity_changes"]

MAX_CHANGED_FILES = 200
MAX_FUNCTIONS = 50
MAX_CALLER_FILES = 200
MAX_CALL_SITES = 2000
_CALL_TEXT = 120
_MAX_CHAIN = 1000   # bytes of a call's receiver read as a module chain (`a.b.c`); a longer one is none
_NOT_DEFINING = frozenset({"import", "export", "parameter"})
_JS_EXTS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_FUNCS = frozenset({"function_definition", "function_declaration", "function_expression", "generator_function",
                    "generator_function_declaration", "method_definition"})
_CLASSES = frozenset({"class_definition", "class_declaration", "abstract_class_declaration", "class"})
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
# An identifier is bound (not read) under these parents, or in the named field of these.
_BINDER_PARENTS = frozenset({
    "parameters", "lambda_parameters", "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern",
    "pattern_list", "tuple_pattern", "list_pattern", "as_pattern_target", "global_statement", "nonlocal_statement",
    "case_pattern", "keyword_pattern", "splat_pattern", "formal_parameters", "rest_pattern", "array_pattern",
    "object_pattern"})
_BINDER_FIELDS = {
    "assignment": "left", "augmented_assignment": "left", "for_statement": "left", "for_in_clause": "left",
    "named_expression": "name", "function_definition": "name", "class_definition": "name",
    "default_parameter": "name", "typed_default_parameter": "name", "variable_declarator": "name",
    "assignment_expression": "left", "augmented_assignment_expression": "left", "function_declaration": "name",
    "function_expression": "name", "generator_function_declaration": "name", "generator_function": "name",
    "class_declaration": "name", "class": "name", "for_in_statement": "left", "assignment_pattern": "left",
    "object_assignment_pattern": "left", "catch_clause": "parameter", "pair_pattern": "value",
    "arrow_function": "parameter", "required_parameter": "pattern", "optional_parameter": "pattern"}
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class ArityMismatch:
    file: str          # head path of the call
    line: int          # 1-based head line where the call starts
    call: str          # the call's text on one line, capped at 120 characters
    function: str      # `name`, or `Class.name` for a method
    defined_at: str    # `path:line` of the definition on head
    old: Shape         # the base signature, which the call fit
    new: Shape         # the head signature, which it does not fit
    reason: str        # one line


@dataclass
class _File:
    rel: str
    source: bytes
    tree: Tree
    family: str          # python | javascript


@dataclass
class _Scan:
    """One head file: its calls (with the class whose method directly holds them), bindings, imports."""

    calls: list[tuple[Node, str | None]] = field(default_factory=list)
    bound: dict[str, list[int]] = field(default_factory=dict)              # name -> lines, imports aside
    imported: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # local -> (module, name|"")
    star: bool = False


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _record_import(node: Node, f: _File, scan: _Scan) -> None:
    def bind(local: str, module: str, name: str) -> None:
        scan.imported.setdefault(local, []).append((module, name))

    if node.type == "import_statement" and f.family == "python":
        for c in node.named_children:
            if c.type == "dotted_name":
                bind(_text(c), _text(c), "")
                bind(_text(c).split(".")[0], _text(c).split(".")[0], "")
            elif c.type == "aliased_import":
                bind(_text(c.child_by_field_name("alias")), _text(c.child_by_field_name("name")), "")
    elif node.type == "import_from_statement":
        module = node.child_by_field_name("module_name")
        spec = resolve_python_import("".join(_text(module).split()), f.rel)
        for c in node.named_children:
            if c.type == "wildcard_import":
                scan.star = True
            elif c.type == "dotted_name" and c != module:
                bind(_text(c), spec, _text(c))
            elif c.type == "aliased_import":
                bind(_text(c.child_by_field_name("alias")), spec, _text(c.child_by_field_name("name")))
    elif node.type == "import_statement":
        spec = _text(node.child_by_field_name("source")).strip("'\"`")
        for clause in (c for c in node.named_children if c.type == "import_clause"):
            for c in clause.named_children:
                if c.type == "identifier":
                    bind(_text(c), spec, "default")
                elif c.type == "namespace_import" and c.named_children:
                    bind(_text(c.named_children[0]), spec, "")
                for s in (s for s in c.named_children if s.type == "import_specifier"):
                    original = _text(s.child_by_field_name("name"))
                    bind(_text(s.child_by_field_name("alias")) or original, spec, original)


def _scan(f: _File) -> _Scan:
    scan = _Scan()
    call = "call" if f.family == "python" else "call_expression"
    # (node, parent, module-level statement, class whose body holds the node, class whose method holds it)
    stack: list[tuple[Node, Node | None, bool, str | None, str | None]] = [(f.tree.root_node, None, True, None, None)]
    while stack:
        node, parent, top, member_of, owner = stack.pop()
        t = node.type
        if t in _IMPORTS:
            _record_import(node, f, scan)
            continue
        if t == call:
            scan.calls.append((node, owner))
        if t in ("identifier", "shorthand_property_identifier_pattern") and parent is not None and (
                t != "identifier" or parent.type in _BINDER_PARENTS
                or parent.child_by_field_name(_BINDER_FIELDS.get(parent.type, "-")) == node):
            scan.bound.setdefault(_text(node), []).append(node.start_point.row + 1)
        wrapper = t in ("decorated_definition", "export_statement")
        child_top = t in ("module", "program") or (wrapper and top)
        child_member = member_of if wrapper else None
        child_owner = member_of if t in _FUNCS else None if t in _CLASSES else owner
        body = node.child_by_field_name("body") if t in _CLASSES and top else None
        for c in node.children:
            if body is not None and c == body:
                stack.extend((m, c, False, _text(node.child_by_field_name("name")), None) for m in c.children)
            else:
                stack.append((c, node, child_top, child_member, child_owner))
    scan.calls.sort(key=lambda item: item[0].start_byte)   # source order: the call-site cap cuts the same calls
    return scan


def _py_modules(rel: str) -> set[str]:
    """Dotted names a Python file can be imported as: the full path, without `src/`, or 2+ trailing parts."""
    parts = rel.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    out = {".".join(parts[i:]) for i in range(len(parts) - 1)} | {".".join(parts)}
    return out | ({".".join(parts[1:])} if parts[:1] == ["src"] else set())


def _js_resolves(caller: str, spec: str, target: str) -> bool:
    if not spec.startswith("."):
        return False
    path = posixpath.normpath(posixpath.join(posixpath.dirname(caller), spec))
    stem, ext = posixpath.splitext(path)
    candidates = {path, *(path + e for e in _JS_EXTS), *(f"{path}/index{e}" for e in _JS_EXTS)}
    if ext in (".js", ".mjs", ".cjs", ".jsx"):   # TS sources are imported under their emitted name
        candidates.update(stem + e for e in _JS_EXTS)
    return target in candidates


class _Probe:
    def __init__(self, snapshot: Snapshot, budget: AnalysisBudget | None, worker_min_files: int) -> None:
        self.snapshot = snapshot
        self.budget = budget
        other = {"base": "head", "head": "base"}
        self.index = {side: SymbolIndex.for_tree(snapshot.tree(side), sibling=snapshot.tree(other[side]),
                                                 changed=snapshot.diff.files, budget=budget,
                                                 worker_min_files=worker_min_files)
                      for side in ("base", "head")}
        # Only indexed files are read: the index never follows a symlink out of the tree.
        self.indexed = {side: set(index.files) for side, index in self.index.items()}
        self.files: dict[tuple[str, str], _File | None] = {}
        self.scans: dict[str, _Scan] = {}
        self.callers: set[str] = set()
        self.sites = 0

    def file(self, side: str, rel: str) -> _File | None:
        if (side, rel) not in self.files:
            language = language_for(rel)
            data = read_source(str(self.snapshot.tree(side) / rel)) if rel in self.indexed[side] else None
            self.files[side, rel] = None if data is None or language is None else self._parse(rel, data, language)
        return self.files[side, rel]

    def _out_of_time(self, what: str) -> bool:
        return self.budget is not None and self.budget.out_of_time(what)

    def _parse(self, rel: str, data: bytes, language: str) -> _File | None:
        budget = self.budget
        if self._out_of_time(rel):
            return None
        try:
            tree = parse_within(language, data, budget.parse_limit(len(data)) if budget is not None else None)
        except ParseTimeout:
            if budget is not None:
                budget.gave_up(rel)
            return None
        return _File(rel, data, tree, "python" if language == "python" else "javascript")

    def unique(self, side: str, rel: str, d: Definition) -> bool:
        """Whether `d` is the only definition of its name in that tree's code of its language family."""
        family = d.shape.language
        hits = [h for h in self.index[side].lookup(d.name, "definition") if h.detail not in _NOT_DEFINING
                and ("python" if language_for(h.file) == "python" else "javascript") == family]
        return {(h.file, h.line) for h in hits} == {(rel, d.line)}

    def changed(self) -> list[tuple[str, Definition, Definition]]:
        """(file, base definition, head definition) of the functions whose parameters changed."""
        out: list[tuple[str, Definition, Definition]] = []
        rels = sorted(rel for rel, c in self.snapshot.diff.files.items() if c.status == "modified" and not c.binary
                      and language_for(rel) is not None)
        for rel in rels[:MAX_CHANGED_FILES]:
            if self._out_of_time(f"the arity probe of {rel}"):
                return out
            base, head = self.file("base", rel), self.file("head", rel)
            if base is None or head is None:
                continue
            old = definitions(base.tree.root_node, base.family)
            ours = definitions(head.tree.root_node, head.family)
            for key, new in sorted(ours.items(), key=lambda kv: (kv[1].line if kv[1] else 0, kv[0][1])):
                was = old.get(key)
                if new is None or was is None or (was.shape, was.binding) == (new.shape, new.binding):
                    continue
                if self.unique("head", rel, new) and self.unique("base", rel, was):
                    out.append((rel, was, new))
                if len(out) >= MAX_FUNCTIONS:
                    return out
        return out

    def resolve(self, scan: _Scan, f: _File, callee: Node, owner: str | None, rel: str, old: Definition,
                new: Definition) -> tuple[Shape, Shape] | None:
        """The (base, head) shapes a call sees when it surely calls this function, else None."""
        obj = callee.child_by_field_name("object") if callee.type in ("attribute", "member_expression") else None
        if new.owner is not None:
            if obj is None or owner != new.owner:
                return None
            receiver = "this" if obj.type == "this" else _text(obj) if obj.type == "identifier" else ""
            before, after = receiver_shape(old, receiver), receiver_shape(new, receiver)
            return (before, after) if before is not None and after is not None else None
        if scan.star:
            return None
        if f.family == "python":
            matches = lambda module: module in _py_modules(rel)  # noqa: E731
        else:
            matches = lambda module: _js_resolves(f.rel, module, rel)  # noqa: E731
        if obj is None:
            entries = scan.imported.get(new.name)
            if f.rel == rel:
                ok = not entries and scan.bound.get(new.name) == [new.line]
            else:
                ok = bool(entries) and new.name not in scan.bound and all(
                    n == new.name and matches(m) for m, n in entries or ())
        elif obj.end_byte - obj.start_byte > _MAX_CHAIN:   # reading it for each call site would be quadratic
            return None
        else:
            chain = "".join(_text(obj).split())
            entries = scan.imported.get(chain) if _DOTTED.fullmatch(chain) else None
            if f.family != "python" and obj.type != "identifier":
                entries = None
            ok = bool(entries) and chain.split(".")[0] not in scan.bound and all(
                matches(m if n == "" else f"{m}.{n}") if f.family == "python" else n == "" and matches(m)
                for m, n in entries or ())
        return (old.shape, new.shape) if ok else None

    def check(self, rel: str, old: Definition, new: Definition) -> Iterator[ArityMismatch]:
        home = self.file("head", rel)
        lookup = self.index["head"].lookup(new.name, "reference", self.budget) if not new.owner else []
        callers = {rel} | {h.file for h in lookup}
        function = f"{new.owner}.{new.name}" if new.owner else new.name
        for caller in sorted(callers):
            if caller not in self.callers and len(self.callers) >= MAX_CALLER_FILES:
                continue
            if self._out_of_time(f"the arity probe of the calls in {caller}"):
                return
            f = self.file("head", caller)
            if f is None or home is None or f.family != home.family:
                continue
            self.callers.add(caller)
            if caller not in self.scans:
                self.scans[caller] = _scan(f)
            scan = self.scans[caller]
            added = self.snapshot.diff.added_lines(caller)
            for node, owner in scan.calls:
                callee = node.child_by_field_name("function")
                name = callee and (callee.child_by_field_name("attribute") or callee.child_by_field_name("property")
                                   if callee.type in ("attribute", "member_expression") else callee)
                if callee is None or name is None or _text(name) != new.name:
                    continue
                if self.sites >= MAX_CALL_SITES:
                    return
                self.sites += 1
                lines = range(node.start_point.row + 1, node.end_point.row + 2)
                shapes = None if added.intersection(lines) else self.resolve(scan, f, callee, owner, rel, old, new)
                args = call_arguments(node) if shapes else None
                if shapes is None or args is None or misfit(shapes[0], function, *args) is not None:
                    continue
                reason = misfit(shapes[1], function, *args)
                if reason is not None:
                    text = " ".join(_text(node).split())
                    text = text if len(text) <= _CALL_TEXT else text[:_CALL_TEXT - 1] + "…"
                    yield ArityMismatch(caller, node.start_point.row + 1, text, function, f"{rel}:{new.line}",
                                        shapes[0], shapes[1], reason)


def arity_changes(snapshot: Snapshot, budget: AnalysisBudget | None = None, *,
                  worker_min_files: int = PARALLEL_MIN_FILES) -> list[ArityMismatch]:
    """Calls on head, outside the change's added lines, that fit a changed function's base parameters but
    not its head ones; sorted by (file, line, function). See the module docstring for what is resolved.
    ``worker_min_files``: the policy's ``symbol_worker_min_files``, for the symbol indexes."""
    probe = _Probe(snapshot, budget, worker_min_files)
    found = [m for rel, old, new in probe.changed() for m in probe.check(rel, old, new)]
    return sorted(found, key=lambda m: (m.file, m.line, m.function, m.call))
