"""`showcause review` end to end with the mechanical judge: verdicts, formats, exit codes, the base cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import make_case
from isolation import AUTO_LEVEL

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo-case"

RENAME_BASE = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/shop/__init__.py": "",
    "src/shop/stock.py": ("def reserve_items(stock: dict[str, int], sku: str, n: int) -> bool:\n"
                          "    if stock.get(sku, 0) < n:\n        return False\n    stock[sku] -= n\n"
                          "    return True\n"),
    "src/shop/orders.py": ("from shop.stock import reserve_items\n\n\n"
                           "def place(stock: dict[str, int], sku: str) -> str:\n"
                           "    # reserve_items keeps stock consistent\n"
                           "    return 'ok' if reserve_items(stock, sku, 1) else 'sold out'\n"),
    "tests/test_orders.py": ("from shop.orders import place\n\n\ndef test_place():\n"
                             "    assert place({'a': 1}, 'a') == 'ok'\n"
                             "    assert place({'a': 0}, 'a') == 'sold out'\n"),
    "CHANGELOG.md": "- reserve_items added\n",
}
RENAME_HEAD: dict[str, str | bytes | None] = {
    "src/shop/stock.py": RENAME_BASE["src/shop/stock.py"].replace("reserve_items", "reserve"),  # type: ignore[union-attr]
    "src/shop/orders.py": RENAME_BASE["src/shop/orders.py"].replace(  # type: ignore[union-attr]
        "import reserve_items", "import reserve").replace("if reserve_items(", "if reserve("),
}


def review(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, "review", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def cache_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {"SHOWCAUSE_CACHE_DIR": str(tmp_path_factory.mktemp("cache"))}


@pytest.fixture(scope="module")
def rename_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_case(tmp_path_factory.mktemp("rv") / "rename", RENAME_BASE, RENAME_HEAD,
                     checks={"tests": ["tests/test_orders.py"], "typecheck": "pyright"},
                     truth={"status": "correct", "kind": "none", "acceptable": ["KEEP"]})


def test_defect_case_is_blocked_with_validated_evidence(cache_env: dict[str, str]):
    proc = review("--case", str(DEMO), "--format", "json", env=cache_env)
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["verdict"] == "MODIFY" and result["model_verdict"] == "MODIFY"
    kinds = [c["gate"]["artifacts"][0]["type"] for c in result["claims"]]
    assert kinds == ["test_regression", "new_type_error", "dangling_reference"]
    assert all(c["gate"]["status"] == "validated" and c["verdict"] == "MODIFY" for c in result["claims"])
    assert [(a["file"], a["line"]) for c in result["claims"] for a in c["gate"]["artifacts"]] == [
        ("tests/test_cart.py", None), ("src/shop/cart.py", 19), ("settings.json", 1)]
    assert {t["tool"] for t in result["tool_calls"]} == {"run_test", "typecheck", "search"}
    assert set(result["tool_calls"][0]) >= {"id", "tool", "args", "ok", "artifacts", "ms"}
    meta = result["meta"]
    assert meta["mode"] == "mechanical" and meta["isolation"] == AUTO_LEVEL and meta["model"] is None
    assert set(meta) >= {"mode", "model", "usage", "cost_usd", "seconds", "isolation", "review_id"}
    # The ground truth never appears in anything the review produced.
    assert "Callers still pass percent" not in proc.stdout


def test_rename_leaving_comments_and_changelog_is_kept(rename_case: Path, cache_env: dict[str, str]):
    proc = review("--case", str(rename_case), "--format", "json", env=cache_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["verdict"] == "KEEP" and result["claims"] == []
    md = review("--case", str(rename_case), "--format", "markdown", env=cache_env)
    assert md.returncode == 0 and md.stdout.count("\n") == 1 and "KEEP" in md.stdout


def test_fail_on(cache_env: dict[str, str]):
    assert review("--case", str(DEMO), "--fail-on", "never", env=cache_env).returncode == 0
    assert review("--case", str(DEMO), "--fail-on", "WARNING", env=cache_env).returncode == 1
    bad = review("--case", str(DEMO), "--fail-on", "sometimes")
    assert bad.returncode == 2 and "unknown --fail-on" in bad.stderr


def test_sarif_for_code_scanning(cache_env: dict[str, str], tmp_path: Path):
    out = tmp_path / "r.sarif"
    proc = review("--case", str(DEMO), "--format", "sarif", "--output", str(out), env=cache_env)
    assert proc.returncode == 1 and proc.stdout == ""
    doc = json.loads(out.read_text())
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    run = doc["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == ["test_regression", "new_type_error", "dangling_reference", "unvalidated"]
    got = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]]
    assert got == [("test_regression", "error", "tests/test_cart.py", 1),
                   ("new_type_error", "error", "src/shop/cart.py", 19),
                   ("dangling_reference", "error", "settings.json", 1)]
    for r in run["results"]:
        assert rule_ids[r["ruleIndex"]] == r["ruleId"] and r["partialFingerprints"]["showcause/v1"]
    assert not list(tmp_path.glob(".*tmp"))


def test_github_annotations(cache_env: dict[str, str]):
    lines = review("--case", str(DEMO), "--format", "github", env=cache_env).stdout.splitlines()
    assert lines[1].startswith("::error file=src/shop/cart.py,line=19,title=showcause MODIFY (validated)::")
    assert lines[-1].startswith("::error title=showcause::showcause: MODIFY")


@pytest.mark.parametrize("args,message", [
    (["--format", "yaml"], "unknown --format"),
    (["--output", "/nonexistent/dir/r.json"], "does not exist"),
    (["--mode", "oracle"], "unknown mode"),
    (["--task-file", "/nonexistent.txt"], "cannot read --task-file"),
])
def test_review_usage_errors(args: list[str], message: str):
    proc = review("--case", str(DEMO), *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_deterministic_and_base_cache_is_used(tmp_path: Path):
    env = {"SHOWCAUSE_CACHE_DIR": str(tmp_path / "c")}
    first = json.loads(review("--case", str(DEMO), "--format", "json", env=env).stdout)
    second = json.loads(review("--case", str(DEMO), "--format", "json", env=env).stdout)
    strip = lambda r: [(c["claim"], c["verdict"], c["evidence_refs"]) for c in r["claims"]]  # noqa: E731
    assert strip(first) == strip(second) and first["verdict"] == second["verdict"] == "MODIFY"
    # Prove the second review read the base side from the cache: rewrite the cached base outcome of the
    # regressed test to "failed" and the regression is no longer the change's doing.
    entries = [p for p in (tmp_path / "c" / "base").iterdir() if "test_total_with_discount" in p.read_text()]
    assert len(entries) == 1
    doc = json.loads(entries[0].read_text())
    doc["outcomes"] = [[t, "failed", m] for t, _o, m in doc["outcomes"]]
    entries[0].write_text(json.dumps(doc))
    third = json.loads(review("--case", str(DEMO), "--format", "json", env=env).stdout)
    assert [c["gate"]["artifacts"][0]["type"] for c in third["claims"]] == ["new_type_error", "dangling_reference"]


def test_git_refs_review(tmp_path: Path, cache_env: dict[str, str]):
    from builders import git_repo

    typed = {**RENAME_BASE, "src/shop/py.typed": ""}   # a project set up for type checking
    repo = git_repo(tmp_path / "r", [typed, {"src/shop/stock.py": "def other() -> int:\n    return 1\n"}])
    proc = review("--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--format", "json", env=cache_env)
    result = json.loads(proc.stdout)
    assert proc.returncode == 1 and result["verdict"] == "MODIFY"
    kinds = {a["type"] for c in result["claims"] for a in c["gate"]["artifacts"]}
    assert kinds == {"test_regression", "new_type_error"}
