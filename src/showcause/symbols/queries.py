"""The tree-sitter queries that find symbols: one for definitions and imports, one for references.

The index needs definitions and imports of every file but references only of the files holding a
looked-up name, so the two are separate queries (each compiled once per process): building an index runs
only the first, a reference lookup runs both, as one query, on the candidate files.  Any query visits every
node of the tree (about 0.27x the parse time even when it captures nothing), so one pass is cheaper than
two.  Patterns rooted at large nodes (``module``, ``class_definition``) are avoided: their in-progress
states are revisited at every node of the subtree and cost about 35% of parse time.  Scope (module /
class level) is found by walking down the few top-level and class-body statements instead;
``Node.parent`` is avoided too (tree-sitter walks down from the root to answer it).  Capture names are a
small protocol read by :mod:`showcause.symbols.extract`:

Definitions query:

``mod``            module specifier nodes (Python dotted / relative names, JS/TS string fragments)
``dynmod``         what a run-time import names: the first argument of ``importlib.import_module``,
                   ``__import__``, ``require`` and ``import()``, or the value of ``pytest_plugins``
``def.<detail>``   defining name nodes, ``<detail>`` being the SymbolHit detail
``bind.<detail>``  binding patterns (destructuring, parameters) whose identifiers are definitions
``xdefault``       value of an ``export default <expression>``
``pyfunc``         Python function names (a function unless the class-body walk made it a method)
``pyclass``        Python class nodes, whose bodies are walked for methods and class-level variables
``_*``             helper captures used only by predicates

References query:

``ref``            every identifier-like node (the reference pool); comments and strings never contain one
``tpool``          TS/TSX ``type_identifier`` nodes (a second pool whose references have detail "type")
``call``           identifier nodes that name the callee of a call / ``new`` (subset of ``ref``)
``tref``           Python identifiers inside type annotations (subset of ``ref``)
``iref``           identifiers naming a module or an imported original name (subset of ``ref``)
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Literal

from tree_sitter import Node, Query

from .languages import get_language

__all__ = ["QueryPart", "get_query", "python_scope_definitions"]

QueryPart = Literal["definitions", "references", "all"]

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


_PYTHON_DEFINITIONS = r"""
(import_statement name: (dotted_name) @mod)
(import_statement name: (aliased_import name: (dotted_name) @mod))
(import_from_statement module_name: [(dotted_name) (relative_import)] @mod)
(future_import_statement "__future__" @mod)
((call function: [(identifier) @_dyn (attribute attribute: (identifier) @_dyn)]
       arguments: (argument_list . (_) @dynmod))
 (#any-of? @_dyn "import_module" "__import__"))
((assignment left: (identifier) @_plugins right: (_) @dynmod)
 (#eq? @_plugins "pytest_plugins"))

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

_PYTHON_REFERENCES = r"""
(identifier) @ref
(call . function: (identifier) @call)
(call . function: (attribute attribute: (identifier) @call))
(type (identifier) @tref)
(generic_type (identifier) @tref)
(type (attribute attribute: (identifier) @tref))

(import_statement (dotted_name (identifier) @iref))
(import_statement (aliased_import (dotted_name (identifier) @iref)))
(import_from_statement (dotted_name (identifier) @iref))
(import_from_statement (aliased_import (dotted_name (identifier) @iref)))
(relative_import (dotted_name (identifier) @iref))
(future_import_statement (dotted_name (identifier) @iref))
"""

_JAVASCRIPT_DEFINITIONS = r"""
(import_statement source: (string (string_fragment) @mod))
(export_statement source: (string (string_fragment) @mod))
(call_expression . function: (import) arguments: (arguments . (string (string_fragment) @mod)))
((call_expression . function: (identifier) @_req arguments: (arguments . (string (string_fragment) @mod)))
 (#eq? @_req "require"))
((call_expression . function: (identifier) @_req arguments: (arguments . (_) @dynmod))
 (#eq? @_req "require"))
(call_expression . function: (import) arguments: (arguments . (_) @dynmod))

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

_JAVASCRIPT_REFERENCES = r"""
[(identifier) (property_identifier) (shorthand_property_identifier) (shorthand_property_identifier_pattern)
 (private_property_identifier)] @ref
(call_expression . function: (identifier) @call)
(call_expression
  . function: (member_expression property: [(property_identifier) (private_property_identifier)] @call))
(new_expression . constructor: (identifier) @call)
(new_expression . constructor: (member_expression property: (property_identifier) @call))
(import_specifier name: (identifier) @iref alias: (_))
"""

_JAVASCRIPT_ONLY_DEFINITIONS = r"""
(field_definition property: [(property_identifier) (private_property_identifier)] @def.property)
(formal_parameters [(identifier) (object_pattern) (array_pattern) (assignment_pattern) (rest_pattern)]
  @bind.parameter)
"""

_TYPESCRIPT_ONLY_DEFINITIONS = r"""
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

_TYPESCRIPT_ONLY_REFERENCES = r"""
(type_identifier) @tpool
"""

_SOURCES: dict[tuple[str, QueryPart], str] = {
    ("python", "definitions"): _PYTHON_DEFINITIONS,
    ("python", "references"): _PYTHON_REFERENCES,
    ("javascript", "definitions"): _JAVASCRIPT_DEFINITIONS + _JAVASCRIPT_ONLY_DEFINITIONS,
    ("javascript", "references"): _JAVASCRIPT_REFERENCES,
    ("typescript", "definitions"): _JAVASCRIPT_DEFINITIONS + _TYPESCRIPT_ONLY_DEFINITIONS,
    ("typescript", "references"): _JAVASCRIPT_REFERENCES + _TYPESCRIPT_ONLY_REFERENCES,
    ("tsx", "definitions"): _JAVASCRIPT_DEFINITIONS + _TYPESCRIPT_ONLY_DEFINITIONS,
    ("tsx", "references"): _JAVASCRIPT_REFERENCES + _TYPESCRIPT_ONLY_REFERENCES,
}


@cache
def get_query(language: str, part: QueryPart) -> Query:
    """Return the ``part`` query for ``language`` (compiled once per process); "all" is both others in
    one query, whose captures are those of the two run apart (patterns match independently)."""
    if part == "all":
        source = _SOURCES.get((language, "definitions"), "") + _SOURCES.get((language, "references"), "")
    else:
        source = _SOURCES.get((language, part), "")
    if not source:
        raise ValueError(f"unsupported language or query part: {language!r}, {part!r}")
    return Query(get_language(language), source)
