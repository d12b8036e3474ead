"""The built wheel, installed by a real resolver into a fresh virtualenv outside the checkout: `showcause
setup` installs the pinned toolchain into the cache, and a Python and a JavaScript case are reviewed from
there, typecheck included.

uv builds the wheel, makes the virtualenv from this interpreter and installs the wheel into it, resolving
every dependency from the registry by the wheel's own metadata (nothing is linked or copied by hand; uv's
cache makes a re-run fast). `uv tool install` of the same wheel must give a working `showcause` on PATH.
A registry that cannot be reached fails the test with that reason: an install that was not tried proves
nothing. The toolchain really is installed by npm from its registry.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

REPO = Path(__file__).resolve().parents[1]
CASES = ("py-token-bucket-refill-fix", "js-auth-refresh-simplify")
INDEX = "https://pypi.org/simple/"
UV = str(Path(sys.executable).parent / "uv")   # the dev extra's uv, next to this interpreter


def run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)


def registry_reachable() -> str:
    """Empty when the index answers, else why not (the test then fails with it)."""
    try:
        code = httpx.get(INDEX + "httpx/", timeout=20, follow_redirects=True).status_code
    except httpx.HTTPError as exc:
        return f"{INDEX} unreachable: {exc!r}"
    return "" if code == 200 else f"{INDEX} answered HTTP {code}"


def outside_env(root: Path) -> dict[str, str]:
    """This process's environment without anything that points into the checkout or its venv."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SHOWCAUSE_CACHE_DIR") and not k.startswith("UV_")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(REPO)) and Path(p) != Path(sys.executable).parent)
    env["UV_PYTHON_DOWNLOADS"] = "never"   # the interpreter is this one; uv must not fetch another
    env["UV_TOOL_DIR"], env["UV_TOOL_BIN_DIR"] = str(root / "tools"), str(root / "tools-bin")
    env["SHOWCAUSE_CACHE_DIR"] = str(root / "cache")
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path, Path]:
    problem = registry_reachable()
    assert not problem, f"the install test needs the package registry: {problem}"
    root = tmp_path_factory.mktemp("wheel")
    env = outside_env(root)
    house = root / "house"
    built = run([UV, "build", "--wheel", "--out-dir", str(house), str(REPO)], env, root)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next(house.glob("showcause-*.whl"))
    venv = root / "venv"
    made = run([UV, "venv", "--python", sys.executable, str(venv)], env, root)
    assert made.returncode == 0, made.stderr[-2000:]
    got = run([UV, "pip", "install", "--python", str(venv / "bin" / "python"), "--index-url", INDEX, str(wheel)],
              env, root)
    assert got.returncode == 0, f"resolving the wheel's dependencies failed:\n{got.stderr[-2000:]}"
    tool = run([UV, "tool", "install", "--python", sys.executable, "--index-url", INDEX, str(wheel)], env, root)
    assert tool.returncode == 0, f"uv tool install failed:\n{tool.stderr[-2000:]}"
    work = root / "work"
    for case in CASES:
        shutil.copytree(REPO / "repo_cases" / case, work / case)
    return venv, env, work, wheel


def test_uv_tool_install_puts_a_working_showcause_on_path(installed: tuple[Path, dict[str, str], Path, Path]):
    _, env, work, _ = installed
    env = {**env, "PATH": env["UV_TOOL_BIN_DIR"] + os.pathsep + env["PATH"]}
    which = shutil.which("showcause", path=env["PATH"])
    assert which == str(Path(env["UV_TOOL_BIN_DIR"]) / "showcause"), which
    doctor = run(["showcause", "doctor"], env, work)
    assert doctor.returncode == 0 and "fix: showcause setup" in doctor.stdout, doctor.stdout + doctor.stderr


def test_the_wheel_sets_up_and_reviews_outside_the_checkout(installed: tuple[Path, dict[str, str], Path, Path]):
    venv, env, work, _ = installed
    sc = str(venv / "bin" / "showcause")
    where = run([str(venv / "bin" / "python"), "-c", "import showcause, httpx; print(showcause.__file__); "
                 "print(httpx.__file__)"], env, work)
    assert all(line.startswith(str(venv)) for line in where.stdout.split()), where.stdout
    before = run([sc, "doctor"], env, work)
    assert before.returncode == 0 and "fix: showcause setup" in before.stdout, before.stdout
    first = run([sc, "setup"], env, work, timeout=600)
    assert first.returncode == 0 and first.stdout.startswith("toolchain installed in "), first.stderr
    again = run([sc, "setup"], env, work)
    assert again.returncode == 0 and again.stdout.startswith("toolchain already installed in "), again.stdout
    # The installed server's opening is on record for an agent's first start, once.
    assert "MCP server: opening answers recorded" in first.stdout, first.stdout
    assert "MCP server: opening answers already on record" in again.stdout, again.stdout
    after = run([sc, "doctor"], env, work)
    assert after.returncode == 0 and f"{env['SHOWCAUSE_CACHE_DIR']}/toolchain/node_modules/typescript" in \
        after.stdout
    outputs, verdicts = {}, {}
    for case in CASES:
        r = run([sc, "review", "--case", str(work / case), "--format", "json"], env, work)
        doc = json.loads(r.stdout)
        outputs[case] = {t["tool"]: t["output"] for t in doc["tool_calls"] if t["tool"] in ("run_test", "typecheck")}
        verdicts[case] = (r.returncode, doc["verdict"])
    # The fix is correct and the tests pass; the JS defect (a race the sequential tests cannot see) is missed
    # by the mechanical mode just as from the checkout: what matters here is that every probe ran.
    assert verdicts == {CASES[0]: (0, "KEEP"), CASES[1]: (0, "KEEP")}
    py, js = (outputs[c] for c in CASES)
    assert "passed on head" in py["run_test"] and "typecheck pyright" in py["typecheck"] and \
        "0 errors on head" in py["typecheck"], py
    assert "passed on head" in js["run_test"] and "typecheck tsc (tsc 7.0.2" in js["typecheck"] and \
        "0 errors on head" in js["typecheck"], js


def test_the_wheel_without_the_bench_extra_has_no_lab(installed: tuple[Path, dict[str, str], Path, Path]):
    """`pip install showcause` is the judge, its CI face and its MCP server: matplotlib (the lab's plot) is not
    installed, and `showcause bench` says how to get the lab (exit 2)."""
    venv, env, work, _ = installed
    sc = str(venv / "bin" / "showcause")
    plot = run([str(venv / "bin" / "python"), "-c", "import matplotlib"], env, work)
    assert plot.returncode == 1 and "No module named 'matplotlib'" in plot.stderr, plot.stderr
    lab = run([sc, "bench", str(work)], env, work)
    assert (lab.returncode, lab.stdout) == (2, ""), lab.stdout + lab.stderr
    assert "needs the bench extra" in lab.stderr and "pip install 'showcause[bench]'" in lab.stderr, lab.stderr
    for command in (["ci", "github", "--help"], ["mcp", "--help"], ["cases", "--help"]):
        shown = run([sc, *command], env, work)
        assert shown.returncode == 0 and "Usage: showcause" in shown.stdout, (command, shown.stderr)
