"""One generic registry of named entries (tools, providers, modes): built-ins and plugins alike.

Built-ins are given as dotted paths (``{"search": "showcause.tools.search:SearchTool"}``) and imported on
first use, so a command pays only for what it touches. Plugins add entries with `register` (an
object), `register_path` (a dotted path, imported on first use too) or Python entry points in the
registry's group, whose value is that same ``module:attribute`` form. Registering a plugin never hides
a built-in: the built-ins are entries from the start, not something loaded when the registry is empty.

A name is taken once: `register` refuses a taken name (`DuplicateName`) unless told to replace it; an
entry point whose name is taken is refused with a warning and the entry already there stays. A plugin
that fails to import or is not the right kind is dropped with a warning (it must not break the
built-ins); a built-in that fails is a bug and raises.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

from showcause.core.errors import DuplicateName

__all__ = ["DuplicateName", "Registry", "load_dotted"]

log = logging.getLogger("showcause.registry")

T = TypeVar("T")


@dataclass(frozen=True)
class _Pending:
    """An entry not imported yet: where it is, and who asked for it (for the messages)."""

    path: str
    origin: str
    builtin: bool


def load_dotted(path: str) -> object:
    """The object at ``package.module:attribute`` (the attribute may be dotted: ``module:Class.attr``)."""
    module, sep, attribute = path.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"{path!r} is not of the form package.module:attribute")
    found: object = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


@cache
def _entry_points(group: str) -> tuple[EntryPoint, ...]:
    # Reading every installed distribution's metadata costs milliseconds: once per group and process.
    return tuple(entry_points(group=group))


class Registry(Generic[T]):
    """Named entries of one kind, in registration order (built-ins first).

    ``kind`` names the entries in messages ("tool", "provider", "mode"); ``group`` is the entry-point
    group plugins use; ``adapt(name, loaded)`` turns an imported object into an entry, or raises
    TypeError or ValueError when it is not one (a class to instantiate, a name that does not match …).
    """

    def __init__(self, kind: str, group: str, builtins: Mapping[str, str],
                 adapt: Callable[[str, object], T]) -> None:
        self.kind = kind
        self.group = group
        self._adapt = adapt
        self._lock = threading.RLock()   # reviews look tools up from several threads at once
        self._entries: dict[str, T | _Pending] = {
            name: _Pending(path, f"built-in {kind} {name!r}", True) for name, path in builtins.items()}
        self._discovered = False

    def register(self, name: str, entry: T, *, replace: bool = False) -> None:
        """Add an entry (what a plugin calls). A taken name is refused with `DuplicateName` unless ``replace``."""
        self._put(name, entry, replace)

    def register_path(self, name: str, path: str, *, replace: bool = False) -> None:
        """Add an entry by ``module:attribute``, imported on first use (as the built-ins are)."""
        self._put(name, _Pending(path, f"{self.kind} {name!r} ({path})", False), replace)

    def _put(self, name: str, entry: T | _Pending, replace: bool) -> None:
        with self._lock:
            self._discover()
            if not name:
                raise ValueError(f"a {self.kind} needs a name")
            if name in self._entries and not replace:
                raise DuplicateName(f"{self.kind} {name!r} is already registered")
            self._entries[name] = entry

    def names(self) -> list[str]:
        """Every name, without importing any entry."""
        with self._lock:
            self._discover()
            return list(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self.names()

    def loaded(self, name: str) -> bool:
        """Whether the entry has been imported (an unknown name is not)."""
        with self._lock:
            return name in self._entries and not isinstance(self._entries[name], _Pending)

    def get(self, name: str) -> T | None:
        """The entry, imported now if it was not yet; None for an unknown name or a plugin that failed."""
        with self._lock:
            self._discover()
            found = self._entries.get(name)
            if not isinstance(found, _Pending):
                return found
            entry = self._load(name, found)
            if entry is None:
                del self._entries[name]
            else:
                self._entries[name] = entry
            return entry

    def entries(self) -> list[T]:
        """Every entry (all imported), in registration order."""
        found = (self.get(name) for name in self.names())
        return [entry for entry in found if entry is not None]

    def __iter__(self) -> Iterator[T]:
        return iter(self.entries())

    def _load(self, name: str, pending: _Pending) -> T | None:
        try:
            return self._adapt(name, load_dotted(pending.path))
        except Exception as exc:
            if pending.builtin:
                raise
            log.warning("%s could not be loaded and is left out: %s: %s", pending.origin, type(exc).__name__, exc)
            return None

    def _discover(self) -> None:
        """Add the entry points of this registry's group (once; each is imported on first use)."""
        if self._discovered:
            return
        self._discovered = True
        for ep in _entry_points(self.group):
            dist = getattr(ep.dist, "name", None) or "an unknown distribution"
            origin = f"{self.kind} plugin {ep.name!r} (entry point {ep.value} in {self.group}, from {dist})"
            if ep.name in self._entries:
                log.warning("%s is refused: a %s of that name is already registered", origin, self.kind)
                continue
            self._entries[ep.name] = _Pending(ep.value, origin, False)
