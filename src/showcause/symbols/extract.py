"""Per-file symbol extraction: a tree-sitter parse plus query passes, stored as name -> rows dicts.

:func:`parse_definitions` runs only the definitions query (what an index keeps for every file);
:func:`parse_symbols` runs the definitions and references queries together, in one pass over the tree:
both pass the definitions captures to the same code.

Hit vocabulary (``SymbolHit.kind`` / ``SymbolHit.detail``):

* ``definition`` details
    - ``function``: Python ``def`` outside a class body; JS/TS function declarations, named function
      expressions, ``const f = () => ...`` / ``function`` / generator values, TS overload signatures.
    - ``method``: Python ``def`` directly in a class body (decorated or not); JS/TS class and object-literal
      methods, getters/setters, TS method signatures.
    - ``class``: Python / JS / TS classes (including abstract and named class expressions).
    - ``variable`` / ``constant``: Python module-level (also directly inside a top-level if / try / with)
      and class-level assignment targets (plain, tuple unpacking, chained, annotated-only); JS/TS
      ``const``/``let``/``var`` declarators including destructured names, TS ``namespace`` names.
      ``constant`` when the name is ALL_CAPS.
    - ``parameter``: function, method and lambda / arrow-function parameters (destructured ones too).
    - ``import``: names bound by an import: ``import x`` (binds ``x``, first component of a dotted name),
      ``import x as y`` (``y``), ``from m import a, b as c`` (``a``, ``c``); JS/TS default, namespace and
      named imports (``import {a as b}`` defines ``b``), TS ``import x = require(...)``.
    - ``export``: JS/TS exported names: ``export {a}`` / ``export {a as b}`` (``a`` / ``b``), every name
      declared by ``export function|class|const|...`` (in addition to its own definition hit),
      ``export * as ns``, ``export default name`` (the name); any other ``export default`` expression
      yields the name ``default``.
    - ``type``: TS type aliases and enums, Python 3.12 ``type X = ...`` aliases.
    - ``interface``: TS interfaces.
    - ``property``: Python ``self.x = ...`` assignments; JS/TS class fields, TS property signatures and
      enum members.
* ``reference`` details -- every identifier occurrence that is not itself a defining name node:
    - ``call``: the callee name of a call or ``new`` (``f()``, ``obj.m()``: ``m``).
    - ``type``: Python identifiers in annotations; every TS/TSX ``type_identifier``.
    - ``import``: module path components and the original name in an aliased import
      (``import a.b`` -> ``b``; ``from m import a as c`` -> ``m``, ``a``; ``import {a as b}`` -> ``a``).
    - ``reference``: everything else (reads, writes, attribute / member names, keyword-argument names,
      JSX tags, local variables that are not definitions by the rules above).

Text inside comments and string literals never yields a hit (tree-sitter keeps it in comment / string
nodes); identifiers inside f-string interpolations and template-literal substitutions do.  Several
occurrences of one name on one line with the same kind and detail collapse to one hit.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from sys import intern

from tree_sitter import Node, Tree

from .languages import LANGUAGES, captures, parse_within
from .queries import get_query, python_scope_definitions
from .specifiers import DYNAMIC_IMPORT, module_specifiers, runtime_specifiers

__all__ = [
    "DEFINITION_DETAILS",
    "DYNAMIC_IMPORT",
    "REFERENCE_DETAILS",
    "FileDefinitions",
    "FileSymbols",
    "SymbolHit",
    "parse_definitions",
    "parse_symbols",
    "unpack_rows",
]

DEFINITION_DETAILS: tuple[str, ...] = (
    "function", "class", "method", "variable", "constant", "parameter",
    "import", "export", "type", "interface", "property",
)  # fmt: skip
REFERENCE_DETAILS: tuple[str, ...] = ("call", "reference", "type", "import")
_DETAIL_CODES = {detail: code for code, detail in enumerate(DEFINITION_DETAILS)}
_EXPORT = _DETAIL_CODES["export"]
_OVERLAYS = ("call", "type", "import")
_TYPED = frozenset(("typescript", "tsx"))  # their defining nodes may be type_identifiers (the second pool)

# A node gets at most one primary definition; earlier details win (a method is not also a function).
_PRIMARY_ORDER: tuple[str, ...] = (
    "method", "function", "class", "interface", "type", "property", "import", "parameter", "variable",
)  # fmt: skip
_GENERIC_POOL = frozenset((
    "identifier", "property_identifier", "shorthand_property_identifier",
    "shorthand_property_identifier_pattern", "private_property_identifier",
))  # fmt: skip
_LEAF_BINDINGS = frozenset({"identifier", "shorthand_property_identifier_pattern"})
_NESTED_BINDINGS = frozenset({"object_pattern", "array_pattern", "rest_pattern"})

Rows = Mapping[str, bytes]  # name -> packed native unsigned ints (array('I').tobytes()), see unpack_rows


@dataclass(frozen=True, slots=True)
class SymbolHit:
    """One definition or reference of ``name``; see the module docstring for ``kind`` / ``detail``."""

    file: str
    line: int
    kind: str
    detail: str
    name: str
    text: str


def _definition_hits(definitions: Rows, name: str) -> set[tuple[int, str, str]]:
    codes = unpack_rows(definitions.get(name))
    return {((code >> 4) + 1, "definition", DEFINITION_DETAILS[code & 15]) for code in codes}


def _definition_list(definitions: Rows) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    for name, codes in definitions.items():
        found.extend(((code >> 4) + 1, DEFINITION_DETAILS[code & 15], name) for code in unpack_rows(codes))
    return sorted(found)


@dataclass(frozen=True, slots=True, eq=False)
class FileDefinitions:
    """Definitions and imports of one file content: what an index keeps for every file (see FileSymbols)."""

    language: str
    definitions: Rows
    imports: tuple[str, ...]
    has_errors: bool

    def hits(self, name: str) -> list[tuple[int, str, str]]:
        """Return sorted unique ``(line, "definition", detail)`` (1-based lines) for ``name``."""
        return sorted(_definition_hits(self.definitions, name))

    def definition_list(self) -> list[tuple[int, str, str]]:
        """Return every definition as sorted ``(line, detail, name)`` (1-based lines)."""
        return _definition_list(self.definitions)


@dataclass(frozen=True, slots=True, eq=False)
class FileSymbols:
    """Symbols of one file content, independent of its path (so it can be shared between trees).

    Every mapping is name -> 0-based rows packed into ``bytes`` (see :func:`unpack_rows`): bytes, str and
    dicts of them are invisible to the cyclic garbage collector, so 30,000 indexed files add a few objects
    per file to its work instead of hundreds.  ``definitions`` packs ``row << 4 | DEFINITION_DETAILS
    index``.  ``refs`` pools every identifier-like node, ``types`` the TS ``type_identifier`` nodes;
    ``def_rows`` / ``def_type_rows`` are the defining nodes within those pools and ``calls`` /
    ``type_refs`` / ``import_refs`` disjoint subsets of ``refs`` with a more specific detail.  Hits are
    derived per name by :meth:`hits`.  Read-only.
    """

    language: str
    definitions: Rows
    refs: Rows
    types: Rows
    calls: Rows
    type_refs: Rows
    import_refs: Rows
    def_rows: Rows
    def_type_rows: Rows
    imports: tuple[str, ...]
    has_errors: bool

    def hits(self, name: str, kind: str = "any") -> list[tuple[int, str, str]]:
        """Return sorted unique ``(line, kind, detail)`` (1-based lines) for ``name``."""
        found = _definition_hits(self.definitions, name) if kind != "reference" else set()
        if kind != "definition":
            pool = unpack_rows(self.refs.get(name))
            if pool:
                counts = Counter(pool)
                counts.subtract(unpack_rows(self.def_rows.get(name)))
                overlays = (self.calls, self.type_refs, self.import_refs)
                for detail, overlay in zip(_OVERLAYS, overlays, strict=True):
                    rows = unpack_rows(overlay.get(name))
                    if rows:
                        counts.subtract(rows)
                        found.update((row + 1, "reference", detail) for row in rows)
                found.update((row + 1, "reference", "reference") for row, n in counts.items() if n > 0)
            tpool = unpack_rows(self.types.get(name))
            if tpool:
                counts = Counter(tpool)
                counts.subtract(unpack_rows(self.def_type_rows.get(name)))
                found.update((row + 1, "reference", "type") for row, n in counts.items() if n > 0)
        return sorted(found)

    def definition_list(self) -> list[tuple[int, str, str]]:
        """Return every definition as sorted ``(line, detail, name)`` (1-based lines)."""
        return _definition_list(self.definitions)


def unpack_rows(packed: bytes | None) -> Sequence[int]:
    """The integers of one :class:`FileSymbols` mapping value (empty for None)."""
    return memoryview(packed).cast("I") if packed else ()


def _decode(raw: dict[bytes, list[int]]) -> dict[str, bytes]:
    """bytes -> rows to interned str -> packed rows (names are shared between files, rows take 4 bytes)."""
    out: dict[str, bytes] = {}
    for key, rows in raw.items():
        name = intern(key.decode("utf-8", "replace"))
        out[name] = out.get(name, b"") + array("I", rows).tobytes()  # a name repeats only if undecodable
    return out


def _pack(lists: dict[str, list[int]]) -> dict[str, bytes]:
    return {name: array("I", values).tobytes() for name, values in lists.items()}


def _group(nodes: list[Node] | None, source: bytes, skip: set[int] | None = None) -> Rows:
    """Group nodes by name: name -> rows, leaving out nodes starting at a ``skip`` offset.  This loop is
    the hot path of indexing: ``source[a:b]`` is about twice as fast as ``node.text``."""
    if not nodes:
        return {}
    raw: defaultdict[bytes, list[int]] = defaultdict(list)
    if skip is None:
        for node in nodes:
            raw[source[node.start_byte : node.end_byte]].append(node.start_point[0])
    else:
        for node in nodes:
            if node.start_byte not in skip:
                raw[source[node.start_byte : node.end_byte]].append(node.start_point[0])
    return _decode(raw)


def _bindings(node: Node) -> Iterator[Node]:
    """Yield the name nodes bound by a (possibly destructuring) JS/TS pattern."""
    kind = node.type
    if kind in _LEAF_BINDINGS:
        yield node
    elif kind in _NESTED_BINDINGS:
        for child in node.named_children:
            yield from _bindings(child)
    elif kind == "pair_pattern":
        value = node.child_by_field_name("value")
        if value is not None:
            yield from _bindings(value)
    elif kind in ("assignment_pattern", "object_assignment_pattern"):
        left = node.child_by_field_name("left")
        if left is not None:
            yield from _bindings(left)


class _Definitions:
    """Collects definitions; with ``track`` also which name nodes are defining, so that they are not
    counted as references (only needed when references are extracted too)."""

    __slots__ = ("def_rows", "def_type_rows", "definitions", "seen", "source", "track", "typed")

    def __init__(self, source: bytes, typed: bool, track: bool) -> None:
        self.source = source
        self.typed = typed
        self.track = track
        self.definitions: dict[str, list[int]] = {}  # name -> row << 4 | detail code
        self.def_rows: dict[str, list[int]] = {}
        self.def_type_rows: dict[str, list[int]] = {}
        self.seen: set[int] = set()

    def add(self, nodes: Iterable[Node], detail: str) -> None:
        """Add primary definitions: at most one per name node, the first detail wins.  The hot loop of
        indexing, so attribute lookups are hoisted out of it."""
        seen, source, definitions = self.seen, self.source, self.definitions
        code = _DETAIL_CODES[detail]
        constant = _DETAIL_CODES["constant"]
        variable, track, typed = detail == "variable", self.track, self.typed
        for node in nodes:
            start = node.start_byte
            if start in seen:
                continue
            seen.add(start)
            name = intern(source[start : node.end_byte].decode("utf-8", "replace"))
            row = node.start_point[0]
            value = row << 4 | (constant if variable and name.isupper() else code)
            found = definitions.get(name)
            if found is None:
                definitions[name] = [value]
            else:
                found.append(value)
            if not track:
                continue
            if typed and node.type == "type_identifier":
                self.def_type_rows.setdefault(name, []).append(row)
            else:  # every other primary defining node is an identifier-like node of the reference pool
                self.def_rows.setdefault(name, []).append(row)

    def add_export(self, node: Node) -> None:
        """Add an export definition, which may name the same node as a primary definition."""
        start = node.start_byte
        name = intern(self.source[start : node.end_byte].decode("utf-8", "replace"))
        row = node.start_point[0]
        self.definitions.setdefault(name, []).append(row << 4 | _EXPORT)
        if self.track and start not in self.seen:
            self.seen.add(start)
            kind = node.type
            if kind in _GENERIC_POOL:
                self.def_rows.setdefault(name, []).append(row)
            elif kind == "type_identifier":
                self.def_type_rows.setdefault(name, []).append(row)

    def add_anonymous_default(self, node: Node) -> None:
        self.definitions.setdefault("default", []).append(node.start_point[0] << 4 | _EXPORT)


def _extract_definitions(
    tree: Tree, caps: dict[str, list[Node]], source: bytes, language: str, track: bool
) -> tuple[_Definitions, tuple[str, ...]]:
    """The definitions (with their defining nodes) and imports, from the captures of the definitions
    query (alone, or together with the references query) on ``tree``."""
    defs = _Definitions(source, language in _TYPED, track)
    for detail in _PRIMARY_ORDER:
        defs.add(caps.get("def." + detail, ()), detail)
        patterns = caps.get("bind." + detail)
        if patterns:
            defs.add((node for pattern in patterns for node in _bindings(pattern)), detail)
    if language == "python":
        classes = caps.get("pyclass")
        for node, detail in python_scope_definitions(tree.root_node, classes or []):
            defs.add((node,), detail)
        defs.add(caps.get("pyfunc", ()), "function")  # no-op for the methods added above
    for node in caps.get("def.export", ()):
        defs.add_export(node)
    for node in caps.get("xdefault", ()):
        if node.type == "identifier":
            defs.add_export(node)
        else:
            defs.add_anonymous_default(node)
    specs = module_specifiers(caps.get("mod"), language) + runtime_specifiers(caps.get("dynmod"), language)
    return defs, tuple(dict.fromkeys(specs))


def _parse(source: bytes, language: str, file: str, seconds: float | None) -> Tree:
    if language not in LANGUAGES:
        raise ValueError(f"unsupported language {language!r} for {file or '<source>'}")
    return parse_within(language, source, seconds)


def parse_definitions(source: bytes, language: str, file: str = "", seconds: float | None = None) -> FileDefinitions:
    """Parse ``source`` as ``language`` and extract its definitions and imports (no references).

    Pure, like :func:`parse_symbols`, whose ``definitions`` and ``imports`` it returns for the same input.
    ``seconds``: the parse's time limit (ParseTimeout), by default the one for its size.
    """
    tree = _parse(source, language, file, seconds)
    caps = captures(get_query(language, "definitions"), tree.root_node)
    defs, imports = _extract_definitions(tree, caps, source, language, track=False)
    return FileDefinitions(language, _pack(defs.definitions), imports, tree.root_node.has_error)


def parse_symbols(source: bytes, language: str, file: str = "", seconds: float | None = None) -> FileSymbols:
    """Parse ``source`` as ``language`` and extract its symbols.

    Pure: the result depends only on ``source`` and ``language``; ``file`` is used in error messages only,
    which is what lets the index share results between files (and trees) with identical content.
    Files with syntax errors yield whatever the error-recovering parse tree contains; ``seconds`` as for
    :func:`parse_definitions`.
    """
    tree = _parse(source, language, file, seconds)
    caps = captures(get_query(language, "all"), tree.root_node)  # one pass over the tree
    defs, imports = _extract_definitions(tree, caps, source, language, track=True)
    return FileSymbols(
        language=language,
        definitions=_pack(defs.definitions),
        refs=_group(caps.get("ref"), source),
        types=_group(caps.get("tpool"), source),
        calls=_group(caps.get("call"), source),
        type_refs=_group(caps.get("tref"), source, defs.seen),
        import_refs=_group(caps.get("iref"), source, defs.seen),
        def_rows=_pack(defs.def_rows),
        def_type_rows=_pack(defs.def_type_rows),
        imports=imports,
        has_errors=tree.root_node.has_error,
    )
