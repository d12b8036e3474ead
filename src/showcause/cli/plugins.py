"""Command families beyond the built-in commands: entry points in the group `showcause.commands`, each a
function that adds its commands to the app. The lab's `bench` is one (cli/lab.py, declared in
pyproject.toml); a plugin adds its own the same way, and one that fails to load is left out with a warning."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from showcause.core.registry import Registry

__all__ = ["COMMANDS", "add_commands"]


def _adapt(name: str, loaded: object) -> Callable[[Any], None]:
    if not callable(loaded):
        raise TypeError(f"command family {name!r} is not a function that adds commands to the app")
    return cast("Callable[[Any], None]", loaded)


COMMANDS: Registry[Callable[[Any], None]] = Registry("command family", "showcause.commands", {}, _adapt)


def add_commands(app: Any) -> None:
    """Every command family's commands, added to `app` (typer's), in registration order."""
    for register in COMMANDS:
        register(app)
