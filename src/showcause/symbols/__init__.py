"""Symbol index for showcause: where names are defined and referenced in a source tree.

Python, JavaScript, TypeScript and TSX files are parsed with tree-sitter.  ``SymbolIndex.for_tree(root)``
returns a shared, incrementally refreshed index; ``lookup(name)`` returns :class:`SymbolHit` records.
See :mod:`showcause.symbols.extract` for the meaning of ``kind`` / ``detail`` and
:mod:`showcause.symbols.index` for the walking, caching and refresh rules.
"""

from .extract import FileSymbols, SymbolHit, parse_symbols
from .index import SymbolIndex
from .languages import language_for

__all__ = ["FileSymbols", "SymbolHit", "SymbolIndex", "language_for", "parse_symbols"]
