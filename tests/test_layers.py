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
    "policy": 1,   # every limit and rule, read by every layer above: it imports only core
    "sandbox": 2, "providers": 2,
    "snapshot": 3, "telemetry": 3,   # the telemetry log: what a review of either kind was, never what it said
    "symbols": 4,
    "analysis": 5,
    "tools": 6,
    "evidence": 7, "quorum": 7,   # the quorum mode of `review` (judges) runs the quorum's sources
    "judges": 8, "render": 8,
    "decision": 9,   # decision review: its modes build on judges' budget, prompts and blindness check
    "service": 10,
    "bench": 11, "mcpserver": 11, "ci": 11,
    "cli": 12,   # the command line hosts every front end: `showcause mcp` starts the MCP server
    "__main__": 13,   # `python -m showcause`: the command line's entry point
}
ROOT = "showcause"   # the package itself: its __init__ imports core, and the service only for type checkers
# (at run time the façade loads lazily: tests/test_public_api.py)


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
        ok = there in ("core", "service") if here == ROOT else there == ROOT or RANKS[there] < RANKS[here]
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


# The front ends reach a review only through the service façade (showcause/service/__init__.py). Beside it the
# CLI keeps the process itself (signal handling, slots) and starts the MCP server, the bench its own packages;
# `bench/verify.py` checks case labels by running single probes, so it reaches the probes directly. `ci` (the CI
# front ends) also asks git where a pull request left its base branch.
_FRONT_ENDS = {
    "cli": ("showcause.cli", "showcause.core.", "showcause.bench.", "showcause.mcpserver", "showcause.ci",
            "showcause.sandbox.lifecycle", "showcause.sandbox.runner"),
    # snapshot.gitplaces: the roots check asks git where a repository is read from.
    "mcpserver": ("showcause.core.", "showcause.mcpserver", "showcause.sandbox.lifecycle",
                  "showcause.sandbox.runner", "showcause.snapshot.gitplaces"),
    # sandbox.lifecycle: bench/remote.py is a process entry (one attempt on a cluster worker), like the CLI.
    # showcause.decision.: the bench's decision arms are decision modes it registers itself.
    "bench": ("showcause.core", "showcause.bench.", "showcause.judges.", "showcause.decision.", "showcause.providers.",
              "showcause.policy", "showcause.sandbox.runner", "showcause.sandbox.lifecycle",
              "showcause.snapshot.gitcmd"),
    "ci": ("showcause.core", "showcause.ci.", "showcause.snapshot.baseref"),
}
_PROBING = {"bench/verify.py"}
# Besides the façade (`showcause.service`, the library's API), the service modules a front end may use by name
# (service/__init__.py says what each is for); the rest of the service is the service's own.
_SERVICE_FOR_FRONT_ENDS = (*(f"showcause.service.{m}" for m in (
    "catalog", "doctor", "setup", "quorum", "outcomes", "toolcall", "report", "inputs", "prepare", "hoststatus")),
    "showcause.decision.review")


def _resolved_imports(path: Path) -> list[tuple[int, str]]:
    """`_imports`, where `from X import m` of a module m is X.m (`from showcause.service import quorum`)."""
    module = ".".join(("showcause", *path.relative_to(SRC).with_suffix("").parts))
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            keep = len(module.split(".")) - node.level + (path.name == "__init__.py")
            base = ".".join([*module.split(".")[:keep], *([node.module] if node.module else [])]) \
                if node.level else node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                is_module = (_module_of(sub) or "").replace(".__init__", "") == sub.removeprefix(ROOT + ".")
                found.append((node.lineno, sub if is_module else base))
    return [(line, name) for line, name in found if name == ROOT or name.startswith(ROOT + ".")]


def _front_end_bypasses() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        here, rel = _package(path), str(path.relative_to(SRC))
        if here not in _FRONT_ENDS or rel in _PROBING:
            continue
        for line, name in _resolved_imports(path):
            if name in (ROOT, "showcause.service") or name.startswith((*_FRONT_ENDS[here], *_SERVICE_FOR_FRONT_ENDS)):
                continue
            found.append(f"{rel}:{line} imports {name}")
    return found


def test_the_cli_and_the_bench_review_only_through_the_service_facade():
    assert _front_end_bypasses() == []


def test_the_facade_check_sees_a_bypass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = tmp_path / "showcause"
    (fake / "bench").mkdir(parents=True)
    (fake / "cli.py").write_text("from showcause.service import review_change\nfrom showcause.judges import base\n")
    (fake / "service").mkdir()
    (fake / "service" / "review.py").write_text("")
    (fake / "service" / "quorum.py").write_text("")
    (fake / "bench" / "attempts.py").write_text("from showcause.service.review import run_review\n"
                                                "from showcause.service import review_change\n"
                                                "from showcause.service import quorum\n"
                                                "from showcause.service import review as internal\n")
    (fake / "bench" / "verify.py").write_text("from showcause.tools.run_test import allowlist\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    assert _front_end_bypasses() == ["bench/attempts.py:1 imports showcause.service.review",
                                     "bench/attempts.py:4 imports showcause.service.review",
                                     "cli.py:2 imports showcause.judges"]


def test_the_architecture_doc_draws_every_ranked_package():
    """docs/architecture.md's layer diagram names every package this test ranks, at its rank (it once left
    quorum/, mcpserver/ and ci/ out)."""
    doc = (SRC.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    diagram = doc.split("## Layers", 1)[1].split("```", 2)[1]
    drawn: dict[str, int] = {}
    for line in diagram.splitlines():
        parts = line.split()
        if parts and parts[0].isdigit():
            for word in parts[1:]:
                if word.endswith(("/", ".py")) or word == "__main__":   # a package/, or a module of its own
                    drawn[word.rstrip("/").removesuffix(".py")] = int(parts[0])
    assert drawn == RANKS


def _module_of(name: str) -> str | None:
    """The module file an imported name is: `showcause.a.b` is a.b.py, a/b/__init__.py, or (a name imported
    from a package) a/__init__.py."""
    parts = name.split(".")[1:]
    for cut in (len(parts), len(parts) - 1):
        base = SRC.joinpath(*parts[:cut]) if cut else SRC
        if cut and base.with_suffix(".py").is_file():
            return ".".join(parts[:cut])
        if (base / "__init__.py").is_file():
            return ".".join([*parts[:cut], "__init__"]) if cut else "__init__"
    return None


def _module_cycles() -> list[list[str]]:
    """Every circle of modules importing each other (each import statement counts, wherever it is), as the
    strongly connected components of the module graph (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        here = ".".join(path.relative_to(SRC).with_suffix("").parts)
        graph[here] = {m for _, name in _resolved_imports(path) if (m := _module_of(name)) and m != here}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:   # the recursion is as deep as the longest import chain (well under 100)
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                part.append(stack.pop())
                if part[-1] == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_module_imports_itself_through_others():
    assert _module_cycles() == []


def test_the_module_check_sees_a_circle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = tmp_path / "showcause"
    (fake / "judges").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "judges" / "__init__.py").write_text("")
    (fake / "judges" / "registry.py").write_text("from showcause.judges import modes\n")
    (fake / "judges" / "modes.py").write_text("def f():\n    from showcause.judges.registry import find\n")
    (fake / "judges" / "other.py").write_text("from showcause.judges.modes import f\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    assert _module_cycles() == [["judges.modes", "judges.registry"]]
