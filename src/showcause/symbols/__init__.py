"""Symbol index for showcause: where names are defined and referenced in a source tree.

Python, JavaScript, TypeScript and TSX files are parsed with tree-sitter.  ``SymbolIndex.for_tree(root)``
returns a shared, incrementally refreshed index; ``lookup(name)`` returns :class:`SymbolHit` records.
See :mod:`showcause.symbols.extract` for the meaning of ``kind`` / ``detail``,
:mod:`showcause.symbols.index` for caching, lazy references and derived indexes, and
:mod:`showcause.symbols.walk` for what is indexed and how a refresh finds changes.
"""

from .extract import DYNAMIC_IMPORT, FileDefinitions, FileSymbols, SymbolHit, parse_definitions, parse_symbols
from .index import SymbolIndex
from .languages import language_for

__all__ = [
    "DYNAMIC_IMPORT", "FileDefinitions", "FileSymbols",
    "SymbolHit", "SymbolIndex", "language_for", "parse_definitions", "parse_symbols",
]  # fmt: skip
