"""Real-world cases whose trees are published releases: prepared once from a registry, reviewed offline.

The registry is a local HTTP server speaking PyPI's JSON simple index (PEP 691) and npm's version
document, serving real tarballs; showcause finds it through SHOWCAUSE_PYPI_URL / SHOWCAUSE_NPM_URL.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from showcause.snapshot.release import release_tree

CLI = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "showcause"

_FIXED = "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n"
_BUGGY = "def clamp(x, lo, hi):\n    return max(lo, x)\n"     # the bug the 1.1 release fixed
_TEST = ("from demo.core import clamp\n\n\ndef test_low():\n    assert clamp(-1, 0, 5) == 0\n\n\n"
         "def test_high():\n    assert clamp(9, 0, 5) == 5\n")
_INI = "[pytest]\npythonpath = .\n"


def _tarball(top: str, files: dict[str, str], evil: str | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for rel, text in {**files, **({evil: "x"} if evil else {})}.items():
            data = text.encode()
            info = tarfile.TarInfo(rel if rel == evil else f"{top}/{rel}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class _Registry:
    """Files by URL path; `pypi(...)` and `npm(...)` publish a release the way each registry describes it."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[str, bytes]] = {}
        self.pypi_files: dict[str, list[dict[str, object]]] = {}
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                found = registry.files.get(self.path)
                if found is None:
                    self.send_error(404)
                    return
                kind, body = found
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def pypi(self, name: str, version: str, body: bytes, digest: str | None = None) -> None:
        filename = f"{name}-{version}.tar.gz"
        self.files[f"/files/{filename}"] = ("application/gzip", body)
        self.pypi_files.setdefault(name, []).append({
            "filename": filename, "url": f"{self.url}/files/{filename}",
            "hashes": {"sha256": digest or hashlib.sha256(body).hexdigest()}})
        index = json.dumps({"meta": {"api-version": "1.0"}, "name": name, "files": self.pypi_files[name]})
        self.files[f"/simple/{name}/"] = ("application/vnd.pypi.simple.v1+json", index.encode())

    def npm(self, name: str, version: str, body: bytes) -> None:
        self.files[f"/tarballs/{name}-{version}.tgz"] = ("application/octet-stream", body)
        integrity = "sha512-" + base64.b64encode(hashlib.sha512(body).digest()).decode()
        doc = {"name": name, "version": version,
               "dist": {"tarball": f"{self.url}/tarballs/{name}-{version}.tgz", "integrity": integrity}}
        self.files[f"/npm/{name}/{version}"] = ("application/json", json.dumps(doc).encode())


@pytest.fixture()
def registry(tmp_path: Path) -> Iterator[_Registry]:
    reg = _Registry()
    yield reg
    reg.server.shutdown()


def _env(reg: _Registry, cache: Path) -> dict[str, str]:
    return {**os.environ, "SHOWCAUSE_PYPI_URL": f"{reg.url}/simple", "SHOWCAUSE_NPM_URL": f"{reg.url}/npm",
            "SHOWCAUSE_CACHE_DIR": str(cache)}


def _case(root: Path, source: dict[str, object], truth: dict[str, object], tests: list[str]) -> Path:
    root.mkdir(parents=True)
    doc = {"id": root.name, "title": "a real-world case", "language": "python",
           "source": {"kind": "real_release", "url": "", "note": "", **source},
           "input": {"task": "t", "plan": "p", "decision_type": "debugging", "risk_level": "low"},
           "checks": {"tests": tests, "typecheck": "none"}, "truth": truth}
    (root / "case.json").write_text(json.dumps(doc), encoding="utf-8")
    return root


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, env=env, timeout=300)


def _publish_demo(reg: _Registry) -> None:
    files = {"pytest.ini": _INI, "demo/__init__.py": "", "tests/test_core.py": _TEST}
    reg.pypi("demo", "1.0", _tarball("demo-1.0", {**files, "demo/core.py": _BUGGY}))
    reg.pypi("demo", "1.1", _tarball("demo-1.1", {**files, "demo/core.py": _FIXED}))


@pytest.mark.isolation
def test_a_reverted_fix_is_caught_from_prepared_releases(registry: _Registry, tmp_path: Path) -> None:
    """base = 1.1 (the fix and its test), head = 1.1 with 1.0's source file: the fixed bug is back."""
    _publish_demo(registry)
    env = _env(registry, tmp_path / "cache")
    case = _case(tmp_path / "cases" / "rw-demo-revert", {"registry": "pypi", "package": "demo", "base": "1.1",
                                                          "head": "1.0", "head_paths": ["demo/core.py"]},
                 {"status": "defect", "kind": "test", "acceptable": ["MODIFY", "REPLACE"],
                  "evidence": ["tests/test_core.py::test_high"]}, ["tests/test_core.py"])
    unprepared = _run(env, "review", "--case", str(case))
    assert unprepared.returncode == 2
    assert "pypi demo 1.1 is not prepared: run `showcause cases prepare`" in unprepared.stderr
    prepared = _run(env, "cases", "prepare", str(case.parent))
    assert prepared.returncode == 0, prepared.stderr
    assert prepared.stdout.split() == ["ok", "rw-demo-revert", "pypi", "demo", "1.1;", "pypi", "demo", "1.0"]
    review = _run(env, "review", "--case", str(case), "--format", "json")
    assert review.returncode == 1, review.stdout + review.stderr
    result = json.loads(review.stdout)
    assert result["verdict"] == "MODIFY"
    arts = [a for c in result["tool_calls"] for a in c["artifacts"]]
    assert [(a["type"], a["detail"]) for a in arts] == [
        ("test_regression", "tests/test_core.py::test_high: failed — assert 9 == 5")]
    verify = _run(env, "cases", "verify", str(case.parent))
    assert verify.returncode == 0, verify.stdout
    assert verify.stdout.splitlines()[-1] == "1 passed, 0 failed"


@pytest.mark.isolation
def test_a_whole_release_as_head_and_an_npm_tarball(registry: _Registry, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _publish_demo(registry)
    registry.npm("left", "2.0.0", _tarball("package", {"package.json": "{}", "index.js": "module.exports = 1;\n"}))
    env = _env(registry, tmp_path / "cache")
    case = _case(tmp_path / "cases" / "rw-demo-release", {"registry": "pypi", "package": "demo", "base": "1.0",
                                                           "head": "1.1"},
                 {"status": "correct", "kind": "none", "acceptable": ["KEEP"]}, ["tests/test_core.py"])
    assert _run(env, "cases", "prepare", str(case)).returncode == 0
    review = _run(env, "review", "--case", str(case), "--format", "json")
    assert review.returncode == 0, review.stdout + review.stderr
    assert json.loads(review.stdout)["verdict"] == "KEEP"
    monkeypatch.setenv("SHOWCAUSE_NPM_URL", f"{registry.url}/npm")
    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(tmp_path / "cache"))
    tree = release_tree("npm", "left", "2.0.0", fetch=True)
    assert sorted(p.name for p in tree.iterdir()) == ["index.js", "package.json"]   # `package/` stripped


@pytest.mark.parametrize("bad", ["digest", "escape"])
def test_a_release_that_is_not_what_the_registry_says_is_refused(registry: _Registry, tmp_path: Path,
                                                                  bad: str) -> None:
    files = {"demo/__init__.py": ""}
    if bad == "digest":
        registry.pypi("demo", "1.0", _tarball("demo-1.0", files), digest="0" * 64)
    else:
        registry.pypi("demo", "1.0", _tarball("demo-1.0", files, evil="../outside.txt"))
    registry.pypi("demo", "1.1", _tarball("demo-1.1", files))
    env = _env(registry, tmp_path / "cache")
    case = _case(tmp_path / "cases" / "rw-bad", {"registry": "pypi", "package": "demo", "base": "1.0",
                                                 "head": "1.1"},
                 {"status": "correct", "kind": "none", "acceptable": ["KEEP"]}, [])
    proc = _run(env, "cases", "prepare", str(case))
    assert proc.returncode == 2
    expected = ("its sha256 digest does not match the registry's" if bad == "digest"
                else "unsafe path '../outside.txt' in the archive")
    assert proc.stdout.startswith("FAIL rw-bad") and expected in proc.stdout
    assert proc.stderr == "showcause: error: 1 of 1 case(s) could not be prepared\n"
    assert not (tmp_path / "outside.txt").exists()
    assert not (tmp_path / "cache" / "releases" / "pypi" / "demo" / "1.0").exists()   # nothing half-written


_PKG_INI = '[project]\nname = "{name}"\nversion = "{version}"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
_APP_TEST = "from util.core import clamp\n\n\ndef test_app_high():\n    assert clamp(9, 0, 5) == 5\n"


@pytest.mark.isolation
def test_a_monorepo_case_puts_each_package_at_its_dir(registry: _Registry, tmp_path: Path) -> None:
    """Two packages of one repository: `app` (libs/app) uses `util` (libs/util); head takes util's older
    release, whose bug app's own tests (run in libs/app with its own settings) catch across the packages."""
    for version, body in (("1.0", _BUGGY), ("1.1", _FIXED)):
        registry.pypi("util", version, _tarball(f"util-{version}", {
            "pyproject.toml": _PKG_INI.format(name="util", version=version), "util/__init__.py": "",
            "util/core.py": body}))
    registry.pypi("app", "2.0", _tarball("app-2.0", {"pyproject.toml": _PKG_INI.format(name="app", version="2.0"),
                                                     "app/__init__.py": "", "tests/test_app.py": _APP_TEST}))
    env = _env(registry, tmp_path / "cache")
    source = {"registry": "pypi", "packages": [
        {"package": "app", "dir": "libs/app", "base": "2.0", "head": "2.0"},
        {"package": "util", "dir": "libs/util", "base": "1.1", "head": "1.0", "head_paths": ["util/core.py"]}]}
    case = _case(tmp_path / "cases" / "rw-mono", source,
                 {"status": "defect", "kind": "test", "acceptable": ["MODIFY", "REPLACE"],
                  "evidence": ["libs/app/tests/test_app.py::test_app_high"]}, [])
    doc = json.loads((case / "case.json").read_text(encoding="utf-8"))
    doc["checks"]["env"] = {"pythonpath": ["libs/util", "libs/app"]}
    (case / "case.json").write_text(json.dumps(doc), encoding="utf-8")
    prepared = _run(env, "cases", "prepare", str(case))
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    assert prepared.stdout.split(";")[0].split() == ["ok", "rw-mono", "pypi", "app", "2.0", "at", "libs/app/"]
    review = _run(env, "review", "--case", str(case), "--format", "json")
    assert review.returncode == 1, review.stdout + review.stderr
    arts = [a for c in json.loads(review.stdout)["tool_calls"] for a in c["artifacts"]]
    assert [(a["type"], a["detail"]) for a in arts] == [
        ("test_regression", "libs/app/tests/test_app.py::test_app_high: failed — assert 9 == 5")]
    verify = _run(env, "cases", "verify", str(case))
    assert verify.returncode == 0, verify.stdout + verify.stderr


@pytest.mark.parametrize(("packages", "message"), [
    ([{"package": "a", "dir": "libs", "base": "1", "head": "1"},
      {"package": "b", "dir": "libs/b", "base": "1", "head": "1"}], "none inside another"),
    ([{"package": "a", "dir": "x", "base": "1", "head": "1"},
      {"package": "b", "dir": "x", "base": "1", "head": "1"}], "each of source.packages needs its own dir"),
    ([{"package": "a", "dir": "../up", "base": "1", "head": "1"}], "unsafe package dir"),
])
def test_a_monorepo_case_with_overlapping_or_escaping_dirs_is_refused(registry: _Registry, tmp_path: Path,
                                                                      packages: list[dict[str, str]],
                                                                      message: str) -> None:
    registry.pypi("a", "1", _tarball("a-1", {"a.py": ""}))
    registry.pypi("b", "1", _tarball("b-1", {"b.py": ""}))
    env = _env(registry, tmp_path / "cache")
    case = _case(tmp_path / "cases" / "rw-overlap", {"registry": "pypi", "packages": packages},
                 {"status": "correct", "kind": "none", "acceptable": ["KEEP"]}, [])
    prepare = _run(env, "cases", "prepare", str(case))
    review = _run(env, "review", "--case", str(case))
    assert review.returncode == 2
    assert message in review.stderr, (prepare.stdout, review.stderr)
    assert not (tmp_path / "up").exists()
