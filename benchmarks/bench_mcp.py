"""`showcause mcp` as an agent uses it: server start to the first `tools/list`, and an agent loop — review, a
one-line edit, review again — against running the head-side affected tests and the type check of the changed
file directly, all measured in one run.

    .venv/bin/python benchmarks/bench_mcp.py [--repeat N] [--modules N]

Start: a real `showcause mcp` subprocess over stdio through the SDK's client, from spawn to the answer of
`tools/list` (median of N), and on to the answer of a first `should_review` call: with no record of the
opening answers (a fresh cache directory per start: the first start after an install or upgrade), and with
the record a previous start left (every later start; mcpserver/relay.py). The loop: the same server
reviews a project of N modules with one test file each; each round edits one line of one module (a correct
edit: the review says KEEP) and calls `review_change`.
Direct: `python -m pytest -q -p no:cacheprovider` on the test files the review ran on head, plus `pyright` on
the changed file, both in the project itself (no sandbox, no copy, no base side). Goal: the second review
costs at most 1.2x the direct run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

_ROOT = Path(__file__).resolve().parents[1]
_BIN = Path(sys.executable).parent
_GIT = ["git", "-c", "user.email=b@example.invalid", "-c", "user.name=b", "-c", "commit.gpgsign=false"]


def make_project(root: Path, modules: int) -> Path:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n')
    (root / "src" / "pkg" / "__init__.py").write_text("")
    for i in range(modules):
        (root / "src" / "pkg" / f"mod{i}.py").write_text(
            f"OFFSET = {i}\n\n\ndef shift(x: int) -> int:\n    return x + OFFSET\n")
        (root / "tests" / f"test_mod{i}.py").write_text(
            f"from pkg.mod{i} import shift\n\n\ndef test_shift():\n    assert shift(1) - 1 == {i}\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*_GIT, "commit", "-qm", "base"], cwd=root, check=True)
    return root


def _params(root: Path, cache: Path | None = None) -> StdioServerParameters:
    env = {k: os.environ[k] for k in ("SHOWCAUSE_CACHE_DIR", "PYTHONPATH") if k in os.environ}
    if cache is not None:
        env["SHOWCAUSE_CACHE_DIR"] = str(cache)
    return StdioServerParameters(command=str(_BIN / "showcause"), args=["mcp", "--root", str(root)], env=env)


async def _start_once(root: Path, cache: Path) -> tuple[float, float]:
    """Spawn to the tools/list answer, and to the answer of a first tool call."""
    started = time.perf_counter()
    async with Client(_params(root, cache)) as client:
        await client.list_tools()
        listed = time.perf_counter() - started
        await client.call_tool("should_review", {"decision_type": "architecture"})
        return listed, time.perf_counter() - started


def _starts(root: Path, repeat: int) -> dict[str, list[tuple[float, float]]]:
    fresh = [anyio.run(_start_once, root, root / f"fresh-cache-{i}") for i in range(repeat)]
    anyio.run(_start_once, root, root / "kept-cache")   # leaves the record every later start replays
    kept = [anyio.run(_start_once, root, root / "kept-cache") for _ in range(repeat)]
    return {"first start (no record)": fresh, "later starts (record kept)": kept}


def _edit(project: Path, round_no: int) -> None:
    # One line, a correct edit: the module's docstring-free body keeps its behaviour.
    path = project / "src" / "pkg" / "mod3.py"
    path.write_text(path.read_text().replace("    return x + OFFSET", f"    return x + OFFSET  # r{round_no}"))


async def _loop(project: Path, rounds: int) -> tuple[float, list[float], list[str]]:
    async with Client(_params(project.parent)) as client:
        await client.list_tools()
        _edit(project, 0)
        t = time.perf_counter()
        first = await client.call_tool("review_change", {"repo": str(project)})
        cold = time.perf_counter() - t
        again: list[float] = []
        doc: dict[str, Any] = first.structured_content or {}
        for i in range(1, rounds + 1):
            subprocess.run(["git", "checkout", "-q", "--", "src/pkg/mod3.py"], cwd=project, check=True)
            _edit(project, i)
            t = time.perf_counter()
            doc = (await client.call_tool("review_change", {"repo": str(project)})).structured_content or {}
            again.append(time.perf_counter() - t)
            assert doc.get("verdict") == "KEEP", doc.get("verdict")
        tests = sorted({t for c in doc["tool_calls"] if c["tool"] == "run_test" and c.get("tree", "head") == "head"
                        for t in c["args"].get("test", [])})
        return cold, again, tests


def _direct(project: Path, tests: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=project,
                   check=True, capture_output=True)
    subprocess.run([str(_BIN / "pyright"), "src/pkg/mod3.py"], cwd=project, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--modules", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="showcause-bench-mcp-") as tmp:
        root = Path(tmp)
        project = make_project(root / "proj", args.modules)
        starts = _starts(root, args.repeat)
        cold, again, tests = anyio.run(_loop, project, args.repeat)
        assert tests, "the review ran no test on head"
        direct = [_direct(project, tests) for _ in range(args.repeat)]
    warm, base = statistics.median(again), statistics.median(direct)
    for label, runs in starts.items():
        listed, called = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"{label}: spawn to tools/list median {listed:.2f} s (goal <= 1 s), to a first tool call's "
              f"answer {called:.2f} s, over {args.repeat}")
    print(f"tests the review ran on head: {', '.join(tests)}")
    print(f"first review {cold:.2f} s; review after a one-line edit: median {warm:.2f} s")
    print(f"direct (pytest on those tests + pyright on the changed file): median {base:.2f} s")
    print(f"ratio second review / direct: {warm / base:.2f}x (goal <= 1.2x)")


if __name__ == "__main__":
    main()
