"""The package's layers: every import points down, and no two packages import each other.

Read from the source (every import statement, at module level or inside a function), not from what a run
happens to load.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "showcause"

# Lower layers first; a package may import its own modules and any package of a lower rank.
RANKS = {
    "core": 0,
    "sandbox": 1, "providers": 1,
    "snapshot": 2,
    "symbols": 3,
    "analysis": 4,
    "tools": 5,
    "evidence": 6,
    "judges": 7, "render": 7,
    "service": 8,
    "bench": 9,
    "cli": 10,
}
ROOT = "showcause"   # the package itself: its __init__ imports only core (the façade is loaded lazily)


def _package(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 or rel.name != "__init__.py" else ROOT


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    module = ".".join(("showcause", *path.relative_to(SRC).with_suffix("").parts))
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parent = module.split(".")[: -node.level] if path.name != "__init__.py" else \
                    module.split(".")[: len(module.split(".")) - node.level]
                found.append((node.lineno, ".".join([*parent, *([node.module] if node.module else [])])))
            else:
                found.append((node.lineno, node.module or ""))
    return [(line, name) for line, name in found if name == ROOT or name.startswith(ROOT + ".")]


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        here = _package(path)
        for line, name in _imports(path):
            there = name.split(".")[1] if "." in name else ROOT
            if there != here:
                edges.setdefault((here, there), []).append(f"{path.relative_to(SRC)}:{line} imports {name}")
    return edges


def test_every_package_has_a_layer():
    packages = {_package(p) for p in SRC.rglob("*.py")} - {ROOT}
    assert packages == set(RANKS), f"give these a rank: {sorted(packages - set(RANKS))}"


def _upward(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    upward = []
    for (here, there), where in sorted(edges.items()):
        ok = there == "core" if here == ROOT else there == ROOT or RANKS[there] < RANKS[here]
        if not ok:
            upward += where
    return upward


def _cycles(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    graph: dict[str, set[str]] = {}
    for here, there in edges:
        graph.setdefault(here, set()).add(there)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    return sorted(f"{a} -> {b}" for a, bs in graph.items() for b in bs if reaches(b, a))


def test_imports_point_down_only():
    upward = _upward(_edges())
    assert upward == [], "imports that run up (or across) a layer:\n" + "\n".join(upward)


def test_no_cycle_between_packages():
    assert _cycles(_edges()) == []


def test_the_checks_see_an_upward_import_and_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # The checks must be able to fail: a core module that imports a judge, inside a function, is caught.
    fake = tmp_path / "showcause"
    (fake / "core").mkdir(parents=True)
    (fake / "judges").mkdir()
    (fake / "__init__.py").write_text("from showcause.core import x\n")
    (fake / "core" / "x.py").write_text("def f():\n    from showcause.judges.mechanical import MechanicalJudge\n")
    (fake / "judges" / "mechanical.py").write_text("from showcause.core import x\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    edges = _edges()
    assert _upward(edges) == ["core/x.py:2 imports showcause.judges.mechanical"]
    assert _cycles(edges) == ["core -> judges", "judges -> core"]
