"""Which files are sources of which language, and the tree-sitter grammars, parsers and queries for them.

Source files: supported extension (:data:`EXTENSIONS`), regular file (symlinks are never followed), at
most 1 MiB, no NUL byte in the first 8 KiB, readable, outside :data:`SKIP_DIRS`.

Each supported language has ONE combined query, compiled once per process, so that extracting a file
costs a single ``QueryCursor.captures()`` pass.  Patterns rooted at large nodes (``module``,
``class_definition``) are avoided: their in-progress states are revisited at every node of the subtree
and cost about 35% of parse time.  Scope (module / class level) is found by walking down the few
top-level and class-body statements instead; ``Node.parent`` is avoided too (tree-sitter walks down from
the root to answer it).  Capture names
are a small protocol read by :mod:`showcause.symbols.extract`:

``ref``            every identifier-like node (the reference pool); comments and strings never contain one
``tpool``          TS/TSX ``type_identifier`` nodes (a second pool whose references have detail "type")
``call``           identifier nodes that name the callee of a call / ``new`` (subset of ``ref``)
``tref``           Python identifiers inside type annotations (subset of ``ref``)
``iref``           identifiers naming a module or an imported original name (subset of ``ref``)
``mod``            module specifier nodes (Python dotted / relative names, JS/TS string fragments)
``def.<detail>``   defining name nodes, ``<detail>`` being the SymbolHit detail
``bind.<detail>``  binding patterns (destructuring, parameters) whose identifiers are definitions
``xdefault``       value of an ``export default <expression>``
``pyfunc``         Python function names (a function unless the class-body walk made it a method)
``pyclass``        Python class nodes, whose bodies are walked for methods and class-level variables
``_*``             helper captures used only by predicates
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from functools import cache

import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser, Query

__all__ = [
    "EXTENSIONS", "LANGUAGES", "MAX_FILE_BYTES", "SKIP_DIRS", "SNIFF_BYTES", "Paths", "get_language",
    "get_parser", "get_query", "language_for", "list_source_dir", "python_scope_definitions", "read_source",
    "resolve_python_import",
]  # fmt: skip

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
}  # fmt: skip

LANGUAGES: tuple[str, ...] = ("python", "javascript", "typescript", "tsx")
MAX_FILE_BYTES = 1 << 20
SNIFF_BYTES = 8192
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})
Paths = list[tuple[str, str]]  # (path relative to the tree root, absolute path)


def language_for(path: str) -> str | None:
    """Return the language of ``path`` from its extension, or None when unsupported."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:] or "\\" in path[dot:]:
        return None
    return EXTENSIONS.get(path[dot:].lower())


def read_source(path: str) -> bytes | None:
    """Return the content of a source file, or None if unreadable, over 1 MiB or binary (NUL in 8 KiB)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES or b"\0" in data[:SNIFF_BYTES]:
        return None
    return data


def list_source_dir(rel_dir: str, path: str) -> tuple[Paths, Paths] | None:
    """List subdirectories (minus SKIP_DIRS) and supported files of a directory; symlinks are skipped."""
    prefix = f"{rel_dir}/" if rel_dir else ""
    subdirs: Paths = []
    files: Paths = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                if entry.is_symlink():
                    continue
                name = entry.name
                if entry.is_dir(follow_symlinks=False):
                    if name not in SKIP_DIRS:
                        subdirs.append((prefix + name, entry.path))
                elif language_for(name) is not None and entry.is_file(follow_symlinks=False):
                    files.append((prefix + name, entry.path))
    except OSError:
        return None
    return subdirs, files


_GRAMMARS = {
    "python": tree_sitter_python.language,
    "javascript": tree_sitter_javascript.language,
    "typescript": tree_sitter_typescript.language_typescript,
    "tsx": tree_sitter_typescript.language_tsx,
}


@cache
def get_language(language: str) -> Language:
    """Return the tree-sitter Language for one of :data:`LANGUAGES`."""
    if language not in _GRAMMARS:
        raise ValueError(f"unsupported language: {language!r}")
    return Language(_GRAMMARS[language]())


_local = threading.local()


def get_parser(language: str) -> Parser:
    """Return a Parser for ``language``; parsers are not thread-safe, so there is one per thread."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    parser = parsers.get(language)
    if parser is None:
        parser = Parser(get_language(language))
        parsers[language] = parser
    return parser


def _package_parts(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            parts = parts[len(parts) - parts[::-1].index(marker) :]
    if parts and parts[0] == "src":
        parts = parts[1:]
    return parts


def resolve_python_import(spec: str, rel: str) -> str:
    """Resolve a relative Python import (``..mod``) against the package of file ``rel``.

    The package is the file's directory relative to the tree root, taken after the last ``site-packages``
    / ``dist-packages`` component and without a leading ``src``.  Unresolvable specifiers are returned
    unchanged.
    """
    if not spec.startswith("."):
        return spec
    rest = spec.lstrip(".")
    level = len(spec) - len(rest)
    package = _package_parts(rel)
    if level - 1 > len(package):
        return spec
    parts = package[: len(package) - (level - 1)] + ([rest] if rest else [])
    return ".".join(parts) or spec


_PY_CLAUSES = frozenset((
    "else_clause", "elif_clause", "except_clause", "except_group_clause", "finally_clause",
))  # fmt: skip
_PY_TOP_BLOCKS = frozenset(("if_statement", "try_statement", "with_statement"))


def _assignment_targets(statement: Node) -> Iterator[Node]:
    """Yield the identifiers assigned by a Python expression statement (``a = b = 1``, ``x, y = ...``)."""
    for expression in statement.named_children:
        while expression is not None and expression.type == "assignment":
            left = expression.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                yield left
            elif left is not None and left.type in ("pattern_list", "tuple_pattern"):
                yield from (item for item in left.named_children if item.type == "identifier")
            expression = expression.child_by_field_name("right")


def python_scope_definitions(root: Node, classes: list[Node]) -> Iterator[tuple[Node, str]]:
    """Yield ``(name node, "method" | "variable")`` for methods and class-level variables of ``classes``
    and for module-level variables (also directly inside a top-level if / try / with).  Walks down the few
    statements involved: ``Node.parent`` is avoided, tree-sitter answers it by walking down from the root."""
    for cls in classes:
        body = cls.child_by_field_name("body")
        for statement in body.named_children if body is not None else ():
            if statement.type == "decorated_definition":
                statement = statement.child_by_field_name("definition") or statement
            if statement.type == "function_definition":
                name = statement.child_by_field_name("name")
                if name is not None:
                    yield name, "method"
            elif statement.type == "expression_statement":
                yield from ((target, "variable") for target in _assignment_targets(statement))
    for statement in root.named_children:
        statements = [statement]
        if statement.type in _PY_TOP_BLOCKS:
            parts = statement.named_children
            clauses = [child for part in parts if part.type in _PY_CLAUSES for child in part.named_children]
            blocks = [block for block in parts + clauses if block.type == "block"]
            statements = [inner for block in blocks for inner in block.named_children]
        for inner in statements:
            if inner.type == "expression_statement":
                yield from ((target, "variable") for target in _assignment_targets(inner))


_PYTHON = r"""
(identifier) @ref
(call . function: (identifier) @call)
(call . function: (attribute attribute: (identifier) @call))
(type (identifier) @tref)
(generic_type (identifier) @tref)
(type (attribute attribute: (identifier) @tref))

(import_statement name: (dotted_name) @mod)
(import_statement name: (aliased_import name: (dotted_name) @mod))
(import_from_statement module_name: [(dotted_name) (relative_import)] @mod)
(future_import_statement "__future__" @mod)
(import_statement (dotted_name (identifier) @iref))
(import_statement (aliased_import (dotted_name (identifier) @iref)))
(import_from_statement (dotted_name (identifier) @iref))
(import_from_statement (aliased_import (dotted_name (identifier) @iref)))
(relative_import (dotted_name (identifier) @iref))
(future_import_statement (dotted_name (identifier) @iref))

(import_statement name: (dotted_name . (identifier) @def.import))
(aliased_import alias: (identifier) @def.import)
(import_from_statement name: (dotted_name (identifier) @def.import))

(function_definition . name: (identifier) @pyfunc)
(class_definition . name: (identifier) @def.class)
(type_alias_statement left: (type (identifier) @def.type))
(class_definition) @pyclass
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @def.property))
 (#eq? @_self "self"))

(parameters [(identifier) @def.parameter
             (list_splat_pattern (identifier) @def.parameter)
             (dictionary_splat_pattern (identifier) @def.parameter)])
(lambda_parameters [(identifier) @def.parameter
                    (list_splat_pattern (identifier) @def.parameter)
                    (dictionary_splat_pattern (identifier) @def.parameter)])
(default_parameter . name: (identifier) @def.parameter)
(typed_parameter . (identifier) @def.parameter)
(typed_parameter
 [(list_splat_pattern (identifier) @def.parameter) (dictionary_splat_pattern (identifier) @def.parameter)])
(typed_default_parameter . name: (identifier) @def.parameter)
"""

_JAVASCRIPT = r"""
[(identifier) (property_identifier) (shorthand_property_identifier) (shorthand_property_identifier_pattern)
 (private_property_identifier)] @ref
(call_expression . function: (identifier) @call)
(call_expression
  . function: (member_expression property: [(property_identifier) (private_property_identifier)] @call))
(new_expression . constructor: (identifier) @call)
(new_expression . constructor: (member_expression property: (property_identifier) @call))

(import_statement source: (string (string_fragment) @mod))
(export_statement source: (string (string_fragment) @mod))
(call_expression . function: (import) arguments: (arguments . (string (string_fragment) @mod)))
((call_expression . function: (identifier) @_req arguments: (arguments . (string (string_fragment) @mod)))
 (#eq? @_req "require"))
(import_specifier name: (identifier) @iref alias: (_))

(import_clause (identifier) @def.import)
(namespace_import (identifier) @def.import)
(import_specifier name: (identifier) @def.import !alias)
(import_specifier alias: (identifier) @def.import)

(method_definition name: [(property_identifier) (private_property_identifier)] @def.method)
(function_declaration . name: (identifier) @def.function)
(generator_function_declaration . name: (identifier) @def.function)
(function_expression . name: (identifier) @def.function)
(generator_function . name: (identifier) @def.function)
(variable_declarator . name: (identifier) @def.function
  value: [(arrow_function) (function_expression) (generator_function)])
(class_declaration name: (_) @def.class)
(class name: (_) @def.class)
(variable_declarator . name: (identifier) @def.variable)
(variable_declarator . name: [(object_pattern) (array_pattern)] @bind.variable)
(arrow_function . parameter: (identifier) @def.parameter)

(export_statement declaration: (_ name: (_) @def.export))
(export_statement declaration: [(lexical_declaration (variable_declarator name: (identifier) @def.export))
                                (variable_declaration (variable_declarator name: (identifier) @def.export))])
(export_specifier name: (_) @def.export !alias)
(export_specifier alias: (_) @def.export)
(namespace_export (_) @def.export)
(export_statement value: (_) @xdefault)
"""

_JAVASCRIPT_ONLY = r"""
(field_definition property: [(property_identifier) (private_property_identifier)] @def.property)
(formal_parameters [(identifier) (object_pattern) (array_pattern) (assignment_pattern) (rest_pattern)]
  @bind.parameter)
"""

_TYPESCRIPT_ONLY = r"""
(type_identifier) @tpool
(import_require_clause (identifier) @def.import)
(import_require_clause source: (string (string_fragment) @mod))
(function_signature . name: (identifier) @def.function)
(abstract_class_declaration name: (_) @def.class)
(method_signature name: [(property_identifier) (private_property_identifier)] @def.method)
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @def.method)
(interface_declaration name: (type_identifier) @def.interface)
(type_alias_declaration name: (type_identifier) @def.type)
(enum_declaration name: (identifier) @def.type)
(public_field_definition name: [(property_identifier) (private_property_identifier)] @def.property)
(property_signature name: (property_identifier) @def.property)
(enum_body name: (property_identifier) @def.property)
(enum_assignment name: (property_identifier) @def.property)
(internal_module name: (identifier) @def.variable)
(required_parameter pattern: (_) @bind.parameter)
(optional_parameter pattern: (_) @bind.parameter)
"""

_SOURCES: dict[str, str] = {
    "python": _PYTHON,
    "javascript": _JAVASCRIPT + _JAVASCRIPT_ONLY,
    "typescript": _JAVASCRIPT + _TYPESCRIPT_ONLY,
    "tsx": _JAVASCRIPT + _TYPESCRIPT_ONLY,
}


@cache
def get_query(language: str) -> Query:
    """Return the combined extraction query for ``language`` (compiled once per process)."""
    return Query(get_language(language), _SOURCES[language])
