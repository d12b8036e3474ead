"""Sample trees for the symbol-index tests (Python, JavaScript, TypeScript, TSX) and their fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import write_tree
from showcause.symbols import SymbolHit, SymbolIndex
from showcause.symbols.index import clear_caches

__all__ = ["APP_JS", "CORE_PY", "TYPES_TS", "UTIL_PY", "VIEW_TSX", "defs", "fresh_caches", "index", "rows", "tree",
           "write"]


CORE_PY = '''\
"""Core module; ghost_name appears only in this docstring, a comment and a string."""
import os
import collections.abc as cabc
from .util import helper, other as alias
from . import sibling

MAX_SIZE = 10
counter = 0


class Widget(Base):
    size: int = 3

    def __init__(self, name: str) -> None:
        self.name = name  # ghost_name in a comment

    @property
    def label(self):
        return helper(self.name, f"{counter}")


def build(count, *args, flag=False, **kwargs):
    text = "ghost_name in a string"
    widget = Widget(text)
    return widget.label, os.path.join(alias, cabc, sibling, MAX_SIZE, count)
'''

UTIL_PY = """\
def helper(*parts):
    return parts


def other():
    return helper()
"""

APP_JS = """\
import React, { useState as useLocalState } from "react";
import * as path from "node:path";
const { join } = require("./util.js");

// ghost_name in a comment
export function render(props, { title = "x" }) {
  const [count, setCount] = useLocalState(0);
  const message = `Hello ${props.user} ghost_name`;
  return join(title, message, count, path.sep);
}

export default class App extends React.Component {
  state = { open: false };
  toggle() {
    this.setState({ open: !this.state.open });
  }
}
"""

TYPES_TS = """\
import type { Widget } from "./widget";
export interface Shape {
  area(): number;
  name: string;
}
export type Id = string | number;
enum Color { Red, Green }
export const DEFAULT_ID: Id = 1;
function measure(shape: Shape, scale = 2): number {
  return shape.area() * scale; /* ghost_name */
}
"""

VIEW_TSX = """\
import { render } from "./app.js";
export const View = ({ title }: { title: string }) => <div className="v">{render(title)}</div>;
"""

Row = tuple[str, int, str, str]


write = write_tree   # the tests below call it for its side effect


def rows(hits: list[SymbolHit]) -> list[Row]:
    return [(h.file, h.line, h.kind, h.detail) for h in hits]


def defs(index: SymbolIndex, file: str) -> list[tuple[int, str, str]]:
    return [(h.line, h.detail, h.name) for h in index.definitions(file)]


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    clear_caches()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    write(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/core.py": CORE_PY,
            "pkg/util.py": UTIL_PY,
            "web/app.js": APP_JS,
            "web/types.ts": TYPES_TS,
            "web/view.tsx": VIEW_TSX,
            "README.md": "helper render ghost_name",
        },
    )
    return root


@pytest.fixture
def index(tree: Path) -> SymbolIndex:
    return SymbolIndex.for_tree(tree)
