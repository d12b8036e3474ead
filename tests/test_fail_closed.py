"""Hosts without a sandbox that hides the host: nothing of the repository runs, and no review passes.

The hosts are real: `tests/support/hosts/<host>/bwrap` and `unshare` are executables that fail exactly as bubblewrap
and util-linux unshare fail on GitHub's ubuntu-24.04 runners (AppArmor refuses the user namespace) and in a
docker container (namespaces refused even to root). Put first on PATH, they make this machine such a host.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import make_case
from isolation import FAKE_HOSTS, fake_host_env

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).with_name("showcause"))
ROOT = Path(__file__).resolve().parents[1]


def _marker(tmp: Path) -> Path:
    return tmp / "REPOSITORY-CODE-RAN"


def _case(tmp: Path) -> Path:
    """A change whose test (and conftest) would leave a file on the host if any of it ran."""
    ran = _marker(tmp)
    conftest = f"open({str(ran)!r}, 'a').write('conftest\\n')\n"
    base = {"pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
            "src/calc.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
            "tests/conftest.py": conftest,
            "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"}
    head = {"src/calc.py": "def add(a: int, b: int) -> int:\n    return a - b\n"}
    return make_case(tmp / "case", base, head, checks={"tests": [], "typecheck": "pyright"})


def _run(*args: str, host: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, *args], capture_output=True, text=True, env=fake_host_env(host), cwd=cwd,
                          timeout=300, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("host", FAKE_HOSTS)
def test_review_is_inconclusive_and_runs_nothing(tmp_path: Path, host: str):
    case = _case(tmp_path)
    out = tmp_path / "review.json"
    proc = _run("review", "--case", str(case), "--format", "json", "--output", str(out), host=host)
    assert proc.returncode == 3, proc.stderr
    result = json.loads(out.read_text())
    assert result["verdict"] == "INCONCLUSIVE" and result["error"]["code"] == "SANDBOX_UNAVAILABLE"
    message = result["error"]["message"]
    assert "repository code is not run" in message and "Cause:" in message and "Fix:" in message
    assert result["meta"]["isolation"] == "unavailable" and result["tool_calls"] == []
    assert not _marker(tmp_path).exists()
    for fmt, first in (("text", "verdict: INCONCLUSIVE"), ("markdown", "❓ **showcause: INCONCLUSIVE**")):
        shown = _run("review", "--case", str(case), "--format", fmt, host=host)
        assert shown.returncode == 3 and shown.stdout.startswith(first), shown.stdout
        assert "SANDBOX_UNAVAILABLE" in shown.stdout
    assert not _marker(tmp_path).exists()


def test_the_message_names_the_cause_and_the_fix(tmp_path: Path):
    case = _case(tmp_path)
    docker = json.loads(_run("review", "--case", str(case), "--format", "json", host="docker").stdout)["error"]
    assert "bwrap: Creating new namespace failed: Operation not permitted" in docker["message"]
    assert "unshare: unshare failed: Operation not permitted" in docker["message"]
    if os.geteuid() == 0:      # as root, refused namespaces mean a container
        assert "a container" in docker["message"] and "--security-opt seccomp=unconfined" in docker["message"]
    else:                      # unprivileged: namespaces refused to this user (tests/hosts/test_host_variants.py)
        assert "user namespaces are refused to this user, and it is not root" in docker["message"]
        assert "run showcause as root" in docker["message"]
    assert "--isolation none" in docker["message"]
    ubuntu = json.loads(_run("review", "--case", str(case), "--format", "json", host="ubuntu-24.04").stdout)["error"]
    assert "bwrap: setting up uid map: Permission denied" in ubuntu["message"]
    assert "unshare: write failed /proc/self/uid_map: Operation not permitted" in ubuntu["message"]


@pytest.mark.parametrize("host", FAKE_HOSTS)
def test_process_tools_are_refused_and_read_tools_work(tmp_path: Path, host: str):
    case = _case(tmp_path)
    for tool, args in (("run_test", '{"test": "tests/test_calc.py"}'), ("typecheck", "{}")):
        proc = _run("tools", "run", tool, "--case", str(case), "--args", args, "--json", host=host)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        record = json.loads(proc.stdout)
        assert record["ok"] is False and record["error"] == "SANDBOX_UNAVAILABLE"
        assert record["output"].startswith(f"T1 {tool}: refused: no sandbox that hides the host works here")
    for tool, args, shown in (("search", '{"pattern": "a - b"}', "src/calc.py:2:"),
                              ("read_file", '{"path": "src/calc.py"}', "return a - b"),
                              ("list_files", "{}", "tests/test_calc.py"),
                              ("find_symbol", '{"name": "add"}', "src/calc.py:1")):
        proc = _run("tools", "run", tool, "--case", str(case), "--args", args, "--json", host=host)
        assert proc.returncode == 0, proc.stderr
        record = json.loads(proc.stdout)
        assert record["ok"] is True and shown in record["output"] and "error" not in record
    assert not _marker(tmp_path).exists()


def test_a_named_level_that_does_not_work_is_never_replaced(tmp_path: Path):
    case = _case(tmp_path)
    for level in ("bwrap", "unshare"):
        proc = _run("review", "--case", str(case), "--format", "json", "--isolation", level, host="ubuntu-24.04")
        error = json.loads(proc.stdout)["error"]
        assert proc.returncode == 3 and error["code"] == "SANDBOX_UNAVAILABLE"
        assert error["message"].startswith(f"isolation {level!r} was asked for but does not work on this host")
    bad = _run("review", "--case", str(case), "--isolation", "chroot", host="ubuntu-24.04")
    assert bad.returncode == 2 and "isolation must be auto, bwrap, unshare or none" in bad.stderr
    assert not _marker(tmp_path).exists()


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "sarif", "github"])
def test_isolation_none_by_name_runs_and_every_format_says_so_first(tmp_path: Path, fmt: str):
    case = _case(tmp_path)
    proc = _run("review", "--case", str(case), "--format", fmt, "--isolation", "none", host="ubuntu-24.04")
    assert proc.returncode == 1, proc.stdout + proc.stderr          # the regression is real and now proven
    assert _marker(tmp_path).read_text().startswith("conftest")     # the user asked for it: the code ran
    first = proc.stdout.splitlines()[0]
    if fmt == "text":
        assert first.startswith("WARNING: isolation none (chosen by name)")
    elif fmt == "markdown":
        assert first.startswith("> ⚠️ **isolation none (chosen by name)")
    elif fmt == "github":
        assert first.startswith("::warning title=showcause::isolation none (chosen by name)")
    elif fmt == "json":
        meta = json.loads(proc.stdout)["meta"]
        assert meta["isolation"] == "none" and meta["warnings"][0].startswith("isolation none (chosen by name)")
    else:
        run = json.loads(proc.stdout)["runs"][0]
        assert run["properties"]["isolation"] == "none"
        assert run["properties"]["warnings"][0].startswith("isolation none (chosen by name)")
        notes = run["invocations"][0]["toolExecutionNotifications"]
        assert notes[0]["level"] == "warning" and notes[0]["message"]["text"].startswith("isolation none")


def test_a_repository_config_cannot_choose_none(tmp_path: Path):
    case = _case(tmp_path)
    (case / "base" / ".showcause.toml").write_text('[sandbox.process]\nisolation = "none"\n')
    proc = _run("review", "--case", str(case), "--format", "json", host="ubuntu-24.04")
    assert proc.returncode == 2 and "isolation may only be tightened by the repository" in proc.stderr
    assert not _marker(tmp_path).exists()


def test_a_model_review_is_inconclusive_before_any_model_call(tmp_path: Path):
    case = _case(tmp_path)
    script = tmp_path / "model.json"
    script.write_text(json.dumps({"turns": [{"content": json.dumps({"summary": "fine", "claims": []})}]}))
    proc = _run("review", "--case", str(case), "--model", f"scripted:{script}", "--format", "json", host="docker")
    result = json.loads(proc.stdout)
    assert proc.returncode == 3 and result["error"]["code"] == "SANDBOX_UNAVAILABLE"
    assert result["meta"]["usage"] == {} and result["tool_calls"] == []


def test_bench_and_case_verification_refuse_up_front(tmp_path: Path):
    case = _case(tmp_path)
    out = tmp_path / "bench-out"
    bench = _run("bench", str(case.parent), "--out", str(out), host="docker")
    assert bench.returncode == 3 and "no sandbox that hides the host works here" in bench.stderr
    assert not out.exists()
    verify = _run("cases", "verify", str(ROOT / "repo_cases" / "py-invoice-vat-grouping"), host="docker")
    assert verify.returncode == 3 and "repository code is not run" in verify.stderr
    assert not _marker(tmp_path).exists()


@pytest.mark.parametrize("host", FAKE_HOSTS)
def test_sandbox_command_says_why(host: str):
    proc = _run("sandbox", "--json", host=host)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 3 and doc["isolation"] is None and doc["error"]["code"] == "SANDBOX_UNAVAILABLE"
    assert not doc["levels"]["bwrap"]["ok"] and not doc["levels"]["unshare"]["ok"]
    assert doc["levels"]["bwrap"]["detail"] == {"docker": "Creating new namespace failed: Operation not permitted",
                                                "ubuntu-24.04": "setting up uid map: Permission denied"}[host]
    chosen = _run("sandbox", "--isolation", "none", host=host)
    assert chosen.returncode == 0 and "WARNING: repository code will run with no isolation" in chosen.stdout


def test_the_base_cache_serves_only_the_level_and_policy_that_stored_it(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    from showcause.policy import SAFE_LEVELS, load_policy
    from showcause.sandbox.levels import probe
    from showcause.tools.basecache import cache_get, cache_put

    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("x = 1\n")
    working = [lv for lv in SAFE_LEVELS if probe(lv).ok]
    for level in working:
        cache_put(tree, "run_tests", "t", load_policy({"process": {"isolation": level}}), {"stored": level})
    for level in working:
        assert cache_get(tree, "run_tests", "t", load_policy({"process": {"isolation": level}})) == {"stored": level}
        # Another policy in force (here a different per-test timeout) is another key.
        other = load_policy({"process": {"isolation": level, "test_timeout_s": 7}})
        assert cache_get(tree, "run_tests", "t", other) is None
    # At `none` the code under test could reach the cache: nothing is stored or served there.
    none = load_policy({"process": {"isolation": "none"}})
    cache_put(tree, "run_tests", "u", none, {"stored": "none"})
    assert cache_get(tree, "run_tests", "u", none) is None
    assert cache_get(tree, "run_tests", "t", none) is None
    stored = sorted((tmp_path / "cache" / "base").glob("*.json")) if working else []
    assert len(stored) == len(working)


def test_the_base_cache_key_holds_showcause_s_own_code(tmp_path: Path) -> None:
    """A base result worked out by other code is never read back: flat's cached base, from a mocha runner that
    did not yet take `-u tdd`, said its tests were already failing and a real regression passed as KEEP."""
    import shutil

    from showcause.tools import basecache

    package = Path(basecache.__file__).resolve().parents[1]
    copy = tmp_path / "showcause"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = basecache.code_digest(copy)
    assert basecache.code_digest(package) == before
    runner = copy / "tools" / "runners" / "mocha_runner.py"
    runner.write_text(runner.read_text(encoding="utf-8") + "\n# another runner\n", encoding="utf-8")
    basecache.code_digest.cache_clear()
    assert basecache.code_digest(copy) != before
    assert basecache._versions()["code"] == basecache.code_digest()
