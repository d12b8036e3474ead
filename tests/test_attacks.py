"""The hostile-repository corpus (`sandbox/attacks/NN-slug/`): every attack must stay contained.

Each attack folder holds `attack.json` (steps and expectations) and `repo/` (the hostile repository).
The format is documented in `sandbox/attacks/README.md`; the threat model in `sandbox/THREATS.md`.

Bait planted for the whole session (so that a leak is unambiguous):
- a random canary in OPENAI_API_KEY, ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, SHOWCAUSE_CANARY;
- the same canary in `~/.showcause-canary-*` (the real user home) and in `/tmp/showcause-canary-*.txt`;
- per attack, a TCP server on 127.0.0.1 that answers every connection with the canary (and counts them).

Invariants checked after every attack, whatever its own expectations say: the canary never appears in
any output; no process whose command line holds the attack's marker survives; no file named after the
marker appeared in /tmp, the home, the venv or the checkout; the bait files are unchanged; nothing
connected to the bait server; the user's tree (the directory given to --repo / --case) is unchanged.

Every attack runs at every isolation level that hides the host and works here (`bwrap`, `unshare`; the
test ids say which). `SHOWCAUSE_ATTACK_ISOLATION=none` runs them at `none` instead: the process attacks are
then expected to FAIL — that is how this harness shows its checks can fail.

The attacks are independent (each has its own copy, marker and canary server), so the selected ones run
`SHOWCAUSE_ATTACK_JOBS` at a time (default 4: most of an attack is spent waiting on a sandbox) as soon as the
session starts; each parametrized test then reports its own attack.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from showcause.evidence.ledger import Ledger
from showcause.sandbox.levels import SAFE_LEVELS, probe
from showcause.service.inputs import open_snapshot, tool_context
from showcause.snapshot import Snapshot, diff_trees

ROOT = Path(__file__).resolve().parents[1]
ATTACKS_DIR = ROOT / "sandbox" / "attacks"
CLI = Path(sys.executable).with_name("showcause")
SECRET_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "SHOWCAUSE_CANARY")
FORCED_ISOLATION = os.environ.get("SHOWCAUSE_ATTACK_ISOLATION", "")
# The levels every attack runs at: each level that hides the host and works on this host.
LEVELS_HERE = [FORCED_ISOLATION] if FORCED_ISOLATION else [lv for lv in SAFE_LEVELS if probe(lv).ok]
JOBS = max(1, int(os.environ.get("SHOWCAUSE_ATTACK_JOBS", "4")))
_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "attacker",
            "GIT_AUTHOR_EMAIL": "a@example.invalid", "GIT_COMMITTER_NAME": "attacker",
            "GIT_COMMITTER_EMAIL": "a@example.invalid"}
_STEP_KEYS = {"via", "tool", "args", "raw_args", "expect", "note", "cwd", "path_prepend"}
_EXPECT_KEYS = {"ok", "exit_code", "output_contains", "output_not_contains", "output_matches", "output_not_matches",
                "max_seconds", "max_output_chars", "isolation", "outcomes", "outcomes_all", "artifacts"}
_ATTACK_KEYS = {"title", "threat", "steps", "setup", "input", "policy", "after", "requires", "known_escape",
                "known_bug", "note"}


# ----------------------------------------------------------------------------------------------------------------
# Bait: canary secrets, canary files and canary servers
# ----------------------------------------------------------------------------------------------------------------

class _CanaryServer:
    """Answers every TCP connection with an HTTP response whose body is the canary; counts connections."""

    def __init__(self, canary: str) -> None:
        self.connections = 0
        self._body = f"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n{canary}\n".encode()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, args=(self._sock,), daemon=True)
        self._thread.start()

    def _serve(self, sock: socket.socket) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            self.connections += 1
            with contextlib.suppress(OSError), conn:
                conn.settimeout(2)
                conn.sendall(self._body)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(timeout=5)


class _UnixCanaryServer(_CanaryServer):
    """The same on host unix sockets: a file in /tmp and an abstract name (both must be out of reach)."""

    def __init__(self, canary: str, path: str) -> None:
        self.connections = 0
        self.path = path
        self.abstract = "showcause-canary-" + secrets.token_hex(6)
        self._body = f"HTTP/1.0 200 OK\r\n\r\n{canary}\n".encode()
        self._socks: list[socket.socket] = []
        for address in (path, "\0" + self.abstract):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(address)
            sock.listen(16)
            self._socks.append(sock)
        os.chmod(path, 0o777)         # reachable by any uid on the host: only the sandbox may stop a test
        self._threads = [threading.Thread(target=self._serve, args=(sock,), daemon=True) for sock in self._socks]
        for thread in self._threads:
            thread.start()

    def close(self) -> None:
        for sock in self._socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for thread in self._threads:
            thread.join(timeout=5)
        with contextlib.suppress(OSError):
            os.unlink(self.path)


@dataclass
class Bait:
    canary: str
    content: str
    canary_file: Path
    home_canary: Path
    cache: Path               # SHOWCAUSE_CACHE_DIR: the base-result cache a test must not reach

    def modes(self) -> tuple[int, int]:
        return self.canary_file.stat().st_mode, self.home_canary.stat().st_mode


@pytest.fixture(scope="module")
def bait() -> Any:
    """Module-scoped: the fake secrets leave the environment before any other test module runs."""
    canary = "SCCANARY" + secrets.token_hex(12)        # one identifier: echoed whole by compilers and checkers
    content = f'secret_token = "{canary}";\n'           # valid Python and JavaScript
    fd, name = tempfile.mkstemp(prefix="showcause-canary-", suffix=".txt", dir="/tmp")
    os.close(fd)
    canary_file = Path(name)
    canary_file.write_text(content, encoding="utf-8")
    # Unique per session, so that two runs of this suite on one machine never share (or delete) one file.
    home_canary = Path.home() / f".showcause-canary-{secrets.token_hex(4)}"
    home_canary.write_text(content, encoding="utf-8")
    cache = Path(tempfile.mkdtemp(prefix="showcause-attack-cache-"))
    mp = pytest.MonkeyPatch()
    for var in SECRET_VARS:
        mp.setenv(var, canary)
    # Base results must not come from (or go to) the user's cache: every attack runs for real.
    mp.setenv("SHOWCAUSE_CACHE_DIR", str(cache))
    try:
        yield Bait(canary, content, canary_file, home_canary, cache)
    finally:
        mp.undo()
        shutil.rmtree(cache, ignore_errors=True)
        canary_file.unlink(missing_ok=True)
        home_canary.unlink(missing_ok=True)


# ----------------------------------------------------------------------------------------------------------------
# Attack loading and materialization
# ----------------------------------------------------------------------------------------------------------------

def _attack_dirs() -> list[Path]:
    if not ATTACKS_DIR.is_dir():
        return []
    return sorted(p for p in ATTACKS_DIR.iterdir() if p.is_dir() and re.match(r"\d\d+-", p.name))


def _substitute(text: str, subs: dict[str, str]) -> str:
    for key, value in subs.items():
        text = text.replace(key, value)
    leftover = re.findall(r"@@[A-Z_]+@@", text)
    if leftover:
        raise ValueError(f"unknown placeholder(s) {sorted(set(leftover))}")
    return text


def _substitute_tree(root: Path, subs: dict[str, str]) -> None:
    raw = {k.encode(): v.encode() for k, v in subs.items()}
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if b"@@" not in data:
                continue
            new = data
            for k, v in raw.items():
                new = new.replace(k, v)
            if new != data:
                path.write_bytes(new)


def _apply_setup(root: Path, setup: dict[str, Any]) -> None:
    """Things git and patches cannot carry portably: symlinks, FIFOs, big or binary files, a .git dir."""
    for spec in setup.get("files", []):
        path = root / spec["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        if "hex" in spec:
            path.write_bytes(bytes.fromhex(spec["hex"]))
        elif "size" in spec:
            fill = spec.get("fill", "a").encode()
            line = spec.get("line_bytes")
            with path.open("wb") as fh:
                written = 0
                chunk = (fill * ((line or 65536) // len(fill) + 1))[: line or 65536]
                while written < spec["size"]:
                    piece = chunk[: spec["size"] - written]
                    fh.write(piece + (b"\n" if line else b""))
                    written += len(piece) + (1 if line else 0)
        else:
            path.write_text(spec.get("text", "") * int(spec.get("repeat", 1)), encoding="utf-8")
    many = setup.get("many_files")
    if many:
        folder = root / many["dir"]
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(int(many["count"])):
            (folder / f"f{i:05d}.txt").write_text(many.get("text", ""), encoding="utf-8")
    for link, target in setup.get("symlinks", {}).items():
        path = root / link
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
    for fifo in setup.get("fifos", []):
        os.mkfifo(root / fifo)
    git = setup.get("git")
    if git is not None:
        env = {**os.environ, **_GIT_ENV}
        for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "hostile"]):
            subprocess.run(["git", *argv], cwd=root, env=env, check=True, capture_output=True)
        for key, value in git.get("config", {}).items():
            subprocess.run(["git", "config", key, value], cwd=root, env=env, check=True)
        crafted = git.get("crafted_commit")
        if crafted:
            _crafted_commit(root, crafted, env)
        # After the commit: swap committed directories for symlinks (the index still lists their files).
        for link, target in git.get("then_symlinks", {}).items():
            _remove(root / link)
            os.symlink(target, root / link)


def _crafted_commit(root: Path, spec: dict[str, Any], env: dict[str, str]) -> None:
    """A commit whose root tree git itself would never write: HEAD's entries plus `entries` appended as-is —
    duplicates allowed (a symlink `x` AND a directory `x/`), and any name, even `..`. `a/b/c` nests trees."""
    def git(args: list[str], data: bytes | None = None) -> bytes:
        return subprocess.run(["git", *args], cwd=root, env=env, input=data, capture_output=True,
                              check=True).stdout.strip()

    def obj(kind: str, data: bytes) -> bytes:
        return bytes.fromhex(git(["hash-object", "-t", kind, "--literally", "-w", "--stdin"], data).decode())

    def tree(entries: list[dict[str, str]]) -> bytes:
        raw, subtrees = b"", {}
        for entry in entries:
            top, _, rest = entry["path"].partition("/")
            if rest:
                subtrees.setdefault(top, []).append({**entry, "path": rest})
            else:
                raw += f"{entry['mode']} {top}".encode() + b"\0" + obj("blob", entry["content"].encode())
        for top, below in subtrees.items():
            raw += f"40000 {top}".encode() + b"\0" + tree(below)
        return obj("tree", raw)

    head = b""
    for line in git(["ls-tree", "HEAD"]).decode().splitlines():
        meta, name = line.split("\t", 1)
        mode, _kind, sha = meta.split()
        head += f"{mode} {name}".encode() + b"\0" + bytes.fromhex(sha)
    extra = tree(spec["entries"])
    body = subprocess.run(["git", "cat-file", "tree", extra.hex()], cwd=root, env=env, capture_output=True,
                          check=True).stdout
    commit = git(["commit-tree", obj("tree", head + body).hex(), "-p", "HEAD", "-m", "crafted"]).decode()
    git(["update-ref", f"refs/heads/{spec['ref']}", commit])


def _tree_digest(root: Path) -> str:
    """Paths, contents and symlink targets of a tree (FIFOs by name only; never opened)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = Path(dirpath) / name
            h.update(str(path.relative_to(root)).encode() + b"\0")
            if path.is_symlink():
                h.update(b"L" + os.readlink(path).encode())
            elif path.is_file():
                h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


@dataclass
class Attack:
    folder: Path
    spec: dict[str, Any]
    subs: dict[str, str]
    tmp: Path
    marker: str
    level: str
    kind: str = "repo"
    user_tree: Path | None = None
    config: Path | None = None
    server: _CanaryServer | None = None
    unix: _UnixCanaryServer | None = None

    @property
    def name(self) -> str:
        return self.folder.name


def _policy(spec: dict[str, Any], level: str) -> dict[str, Any]:
    policy = dict(spec.get("policy", {}))
    if FORCED_ISOLATION or "isolation" not in policy:
        policy["isolation"] = level
    return policy


def _toml(doc: dict[str, Any]) -> str:
    lines = []
    for key, value in doc.items():
        lines.append(f"{key} = {json.dumps(value)}")       # JSON scalars and string lists are valid TOML
    return "\n".join(lines) + "\n"


def _materialize(folder: Path, bait: Bait, tmp: Path, server: _CanaryServer, unix: _UnixCanaryServer,
                 level: str) -> Attack:
    marker = "SCMARK" + secrets.token_hex(8)
    tmp = tmp.resolve()
    spec_text = (folder / "attack.json").read_text(encoding="utf-8")
    kind = json.loads(spec_text).get("input", {}).get("kind", "repo")
    user_tree = tmp / ("case" if kind == "case" else "repo")
    subs = {"@@CANARY@@": bait.canary, "@@CANARY_FILE@@": str(bait.canary_file),
            "@@HOME_CANARY@@": str(bait.home_canary), "@@HOME_CANARY_NAME@@": bait.home_canary.name,
            "@@CANARY_FILE_NAME@@": bait.canary_file.name, "@@HOME@@": str(Path.home()),
            "@@PORT@@": str(server.port), "@@MARKER@@": marker, "@@VENV@@": sys.prefix,
            "@@TMP@@": tempfile.gettempdir(), "@@WORK@@": str(ROOT), "@@USER_TREE@@": str(user_tree),
            "@@CASE_DIR@@": str(user_tree), "@@LEVEL@@": level, "@@UNIX_SOCKET@@": unix.path,
            "@@ABSTRACT_SOCKET@@": unix.abstract, "@@CACHE_DIR@@": str(bait.cache),
            "@@SITE_PACKAGES@@": sysconfig.get_paths()["purelib"]}
    spec = json.loads(_substitute(spec_text, subs))
    unknown = set(spec) - _ATTACK_KEYS
    assert not unknown, f"{folder.name}: unknown attack.json keys {sorted(unknown)}"
    attack = Attack(folder, spec, subs, tmp, marker, level, kind, user_tree, server=server, unix=unix)
    base = user_tree / "base" if kind == "case" else user_tree
    if (folder / "repo").is_dir():
        shutil.copytree(folder / "repo", base, symlinks=True)
    else:
        base.mkdir(parents=True)
    _substitute_tree(base, subs)
    _apply_setup(base, spec.get("setup", {}))
    if kind == "case":
        _write_case(attack, base)
    policy = _policy(spec, level)
    if policy:
        attack.config = tmp / "policy.toml"
        attack.config.write_text(_toml(policy), encoding="utf-8")
    return attack


def _write_case(attack: Attack, base: Path) -> None:
    """A repo case: base/ = repo/, patch.diff = the attack's patch.diff or the change to repo/ + head/."""
    folder, case_dir, inp = attack.folder, attack.user_tree, attack.spec.get("input", {})
    assert case_dir is not None
    if (folder / "patch.diff").is_file():
        patch = _substitute((folder / "patch.diff").read_text(encoding="utf-8"), attack.subs)
    else:
        work = case_dir / "_head"
        shutil.copytree(base, work, symlinks=True)
        if (folder / "head").is_dir():
            shutil.copytree(folder / "head", work, symlinks=True, dirs_exist_ok=True)
        _substitute_tree(work, attack.subs)
        # Big files the change adds, made here rather than committed (same format as setup.files).
        _apply_setup(work, {"files": attack.spec.get("setup", {}).get("head_files", [])})
        proc = subprocess.run(["git", "diff", "--no-index", "--no-color", "--binary", "--", "base", "_head"],
                              cwd=case_dir, capture_output=True, text=True, env={**os.environ, **_GIT_ENV})
        assert proc.returncode == 1, f"{folder.name}: head/ does not change anything: {proc.stderr}"
        patch = proc.stdout.replace("a/base/", "a/").replace("b/_head/", "b/")
        shutil.rmtree(work)
    (case_dir / "patch.diff").write_text(patch, encoding="utf-8")
    doc = {"id": folder.name, "title": attack.spec.get("title", ""), "language": inp.get("language", "python"),
           "input": {"task": "review", "plan": "", "constraints": [], "context": "", "decision_type": "security",
                     "risk_level": "high"},
           "checks": {"tests": inp.get("tests", []), "typecheck": inp.get("typecheck", "none")},
           # Ground truth holds the canary: no tool may ever reach it.
           "truth": {"status": "defect", "kind": "test", "issue": attack.subs["@@CANARY@@"],
                     "evidence": [attack.subs["@@CANARY@@"]]}}
    (case_dir / "case.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")


# ----------------------------------------------------------------------------------------------------------------
# Running steps
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class StepResult:
    record: dict[str, Any] | None      # the ledger record (None when the CLI exited non-zero)
    text: str                          # what the caller is shown: the record's output (+ the CLI's stderr)
    raw: str                           # every byte the caller got, echoed arguments included (canary check)
    exit_code: int                     # CLI exit status (0 for API calls)
    seconds: float


class _Runner:
    """Runs an attack's steps; API steps share one snapshot and one ledger (so T1, T2, … accumulate)."""

    def __init__(self, attack: Attack) -> None:
        self.attack = attack
        self.stack = contextlib.ExitStack()
        self.ledger: Ledger | None = None

    def close(self) -> None:
        self.stack.close()

    def _input_argv(self) -> list[str]:
        a = self.attack
        assert a.user_tree is not None
        if a.kind == "case":
            argv = ["--case", str(a.user_tree)]
        elif a.kind == "repo":
            argv = ["--repo", str(a.user_tree)]
        elif a.kind == "git":
            inp = a.spec["input"]
            argv = ["--repo", str(a.user_tree), "--base", inp["base"], "--head", inp["head"]]
        else:
            raise AssertionError(f"{a.name}: input kind {a.kind!r} has no CLI form; use via=api")
        return argv + (["--config", str(a.config)] if a.config else [])

    def _snapshot(self) -> Snapshot:
        a = self.attack
        assert a.user_tree is not None
        if a.kind == "case":
            return self.stack.enter_context(open_snapshot(case=a.user_tree))
        if a.kind == "repo":
            return self.stack.enter_context(open_snapshot(repo=a.user_tree))
        if a.kind == "git":
            inp = a.spec["input"]
            return self.stack.enter_context(open_snapshot(repo=a.user_tree, base=inp["base"], head=inp["head"]))
        # "raw": both trees are plain copies with nothing filtered (not even .git), as a future snapshot source
        # might produce: the tools' own defences are then all that stands between the model and the files.
        parent = Path(tempfile.mkdtemp(prefix="showcause-rawsnap-"))
        self.stack.callback(shutil.rmtree, parent, True)
        for side in ("base", "head"):
            shutil.copytree(a.user_tree, parent / side, symlinks=True)
        return Snapshot(base=parent / "base", head=parent / "head", diff=diff_trees(parent), label="raw")

    def run(self, step: dict[str, Any]) -> StepResult:
        if step.get("via", "api") == "cli":
            return self._cli(step)
        return self._api(step)

    def _cli_env(self, step: dict[str, Any]) -> tuple[Path | None, dict[str, str] | None]:
        """The working directory and environment of a CLI step: a user running showcause from inside the
        hostile checkout (`cwd: user_tree`), with PATH entries of their own ahead of the real ones."""
        cwd = self.attack.user_tree if step.get("cwd") == "user_tree" else None
        assert step.get("cwd") in (None, "user_tree"), f"cwd must be 'user_tree', not {step.get('cwd')!r}"
        if "path_prepend" not in step:
            return cwd, None
        return cwd, {**os.environ, "PATH": os.pathsep.join([*step["path_prepend"], os.environ.get("PATH", "")])}

    def _cli(self, step: dict[str, Any]) -> StepResult:
        if step["tool"] == "review":      # a whole review; `args`: extra command-line arguments
            argv = [str(CLI), "review", *self._input_argv(), "--format", "json", *step.get("args", [])]
        else:
            raw_args = step["raw_args"] if "raw_args" in step else json.dumps(step.get("args", {}))
            argv = [str(CLI), "tools", "run", step["tool"], "--json", *self._input_argv(), "--args", raw_args]
        limit = float(step.get("expect", {}).get("max_seconds", 60)) * 2 + 30
        cwd, env = self._cli_env(step)
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL,
                                  cwd=cwd, env=env)
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(f"the CLI did not return within {limit:g} s") from exc
        seconds = time.monotonic() - started
        record = None
        if proc.returncode == 0 or step["tool"] == "review":   # a review exits 1 on MODIFY, 3 on INCONCLUSIVE
            try:
                record = json.loads(proc.stdout)
            except json.JSONDecodeError:
                record = None
        if step["tool"] == "review":      # what a review's caller is shown: its whole report
            text = proc.stdout + "\n" + proc.stderr
        else:
            text = record["output"] + "\n" + proc.stderr if record else proc.stderr + proc.stdout
        return StepResult(record, text, proc.stdout + proc.stderr, proc.returncode, seconds)

    def _api(self, step: dict[str, Any]) -> StepResult:
        if self.ledger is None:
            snap = self._snapshot()
            self.ledger = Ledger(tool_context(snap, self.attack.config))
        started = time.monotonic()
        call = self.ledger.call(step["tool"], step.get("args", {}))
        seconds = time.monotonic() - started
        record = call.to_json()
        return StepResult(record, call.output, json.dumps(record, ensure_ascii=False), 0, seconds)


# ----------------------------------------------------------------------------------------------------------------
# Expectations
# ----------------------------------------------------------------------------------------------------------------

def _listify(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _check_step(n: int, step: dict[str, Any], res: StepResult, bait: Bait) -> list[str]:
    exp = step.get("expect", {})
    unknown = set(exp) - _EXPECT_KEYS
    assert not unknown, f"step {n}: unknown expect keys {sorted(unknown)}"
    where = f"step {n} ({step.get('via', 'api')} {step['tool']} {step.get('args', step.get('raw_args'))!r})"
    bad: list[str] = []
    if bait.canary in res.raw:
        at = res.raw.find(bait.canary)
        bad.append(f"{where}: the CANARY leaked: …{res.raw[max(0, at - 200): at + 60]!r}")
    want_exit = exp.get("exit_code", 0)
    if step.get("via", "api") == "cli" and res.exit_code != want_exit:
        bad.append(f"{where}: exit code {res.exit_code}, expected {want_exit}: {res.raw[-600:]!r}")
    rec = res.record
    if "ok" in exp:
        got = rec.get("ok") if rec else None
        if got is not exp["ok"]:
            bad.append(f"{where}: ok={got}, expected {exp['ok']}: {res.text[:600]!r}")
    for s in _listify(exp.get("output_contains", [])):
        if s not in res.text:
            bad.append(f"{where}: output lacks {s!r}: {res.text[:800]!r}")
    for s in _listify(exp.get("output_not_contains", [])):
        if s in res.text:
            at = res.text.find(s)
            bad.append(f"{where}: output contains {s!r}: …{res.text[max(0, at - 200): at + 200]!r}")
    for rx in _listify(exp.get("output_matches", [])):
        if not re.search(rx, res.text, re.M):
            bad.append(f"{where}: output does not match /{rx}/: {res.text[:800]!r}")
    for rx in _listify(exp.get("output_not_matches", [])):
        m = re.search(rx, res.text, re.M)
        if m:
            bad.append(f"{where}: output matches /{rx}/ at {res.text[max(0, m.start() - 200): m.end() + 200]!r}")
    if "max_seconds" in exp and res.seconds > exp["max_seconds"]:
        bad.append(f"{where}: took {res.seconds:.1f} s, more than {exp['max_seconds']} s")
    shown = rec.get("output", res.text) if rec else res.text
    if "max_output_chars" in exp and len(shown) > exp["max_output_chars"]:
        bad.append(f"{where}: output is {len(shown)} chars, more than {exp['max_output_chars']}")
    if "isolation" in exp:
        got = rec.get("isolation") if rec else None
        if got not in _listify(exp["isolation"]) and not FORCED_ISOLATION:
            bad.append(f"{where}: isolation {got!r}, expected {exp['isolation']!r}")
    results = {r["test"]: r["head"] for r in (rec or {}).get("results") or []}
    for test_id, outcome in exp.get("outcomes", {}).items():
        if results.get(test_id) not in _listify(outcome):
            bad.append(f"{where}: {test_id} outcome {results.get(test_id)!r}, expected {outcome!r}; "
                       f"output: {res.text[:600]!r}")
    if "outcomes_all" in exp:
        wrong = {t: o for t, o in results.items() if o not in _listify(exp["outcomes_all"])}
        if not results or wrong:
            bad.append(f"{where}: expected every outcome in {exp['outcomes_all']!r}, got {results!r}; "
                       f"output: {res.text[:600]!r}")
    if "artifacts" in exp:
        got_n = len((rec or {}).get("artifacts") or [])
        if got_n != exp["artifacts"]:
            bad.append(f"{where}: {got_n} artifacts, expected {exp['artifacts']}")
    return bad


def _marked_processes(marker: str) -> list[int]:
    needle, found, me = marker.encode(), [], os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        with contextlib.suppress(OSError):
            if needle in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


def _check_survivors(attack: Attack, when: str) -> list[str]:
    """No process started by the attack (its marker is in the command line) may outlive the call."""
    deadline = time.monotonic() + 3.0
    pids = _marked_processes(attack.marker)
    while pids and time.monotonic() < deadline:
        time.sleep(0.2)
        pids = _marked_processes(attack.marker)
    if not pids:
        return []
    cmdlines = []
    for pid in pids:
        with contextlib.suppress(OSError):
            cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:200].decode())
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)            # clean up after the escape (only the attack's own processes)
    return [f"{when}: {len(pids)} process(es) of the attack survived the call: {cmdlines}"]


def _marker_files(attack: Attack) -> list[Path]:
    places = [Path(tempfile.gettempdir()), Path("/tmp"), Path.home(), Path(sys.prefix), ROOT]
    found: set[Path] = set()
    for place in places:
        with contextlib.suppress(OSError):
            found.update(p for p in place.iterdir() if attack.marker in p.name)
    return sorted(found)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _check_after(attack: Attack, bait: Bait, digest_before: str, modes_before: tuple[int, int]) -> list[str]:
    bad: list[str] = []
    after = attack.spec.get("after", {})
    for raw in after.get("host_paths_absent", []):
        path = Path(raw)
        if os.path.lexists(path):
            bad.append(f"after: {path} exists on the host: {path.read_bytes()[:300]!r}"
                       if path.is_file() else f"after: {path} exists on the host")
            _remove(path)
    for path in _marker_files(attack):
        content = path.read_bytes()[:300] if path.is_file() else b""
        bad.append(f"after: a file named after the attack's marker appeared on the host: {path} {content!r}")
        _remove(path)
    if bait.canary_file.read_text(encoding="utf-8") != bait.content:
        bad.append(f"after: the /tmp canary file {bait.canary_file} was changed")
    if bait.home_canary.read_text(encoding="utf-8") != bait.content:
        bad.append(f"after: the home canary file {bait.home_canary} was changed")
    assert attack.server is not None and attack.unix is not None
    if attack.server.connections:
        bad.append(f"after: {attack.server.connections} connection(s) reached the canary server on "
                   f"127.0.0.1:{attack.server.port}")
    if attack.unix.connections:
        bad.append(f"after: {attack.unix.connections} connection(s) reached the host's unix sockets")
    if bait.modes() != modes_before:
        bad.append(f"after: the mode of a canary file changed: {modes_before} -> {bait.modes()}")
    cached = sorted(p.name for p in bait.cache.rglob("*") if attack.marker in p.name or p.suffix == ".pth")
    if cached:
        bad.append(f"after: the code under test wrote into the base-result cache: {cached}")
    assert attack.user_tree is not None
    if _tree_digest(attack.user_tree) != digest_before:
        bad.append(f"after: the user's tree {attack.user_tree} was modified")
    return bad


def _requirement_missing(req: str) -> str | None:
    if req == "node" and not shutil.which("node"):
        return "node is not installed"
    if req == "tsc" and not (ROOT / "toolchain" / "node_modules" / "typescript" / "bin" / "tsc").is_file():
        return "tsc is not installed (make setup)"
    if req == "pyright" and not Path(sys.executable).with_name("pyright").exists():
        return "pyright is not installed"
    if req == "find_symbol":
        try:
            from showcause.tools import find_symbol  # noqa: F401
        except ImportError as exc:
            return f"find_symbol is not importable yet: {exc}"
    if req == "namespaces" and FORCED_ISOLATION == "none":
        # The attack mounts or unmounts: without a private mount namespace it would act on the host itself.
        return "never run with isolation none: the attack would (un)mount on the host"
    return None


ATTACKS = _attack_dirs()


def test_corpus_is_complete() -> None:
    assert len(ATTACKS) >= 28, f"only {len(ATTACKS)} attacks in {ATTACKS_DIR}"
    names = [p.name.split("-", 1)[0] for p in ATTACKS]
    assert len(names) == len(set(names)), "two attacks share a number"
    for folder in ATTACKS:
        spec = json.loads((folder / "attack.json").read_text(encoding="utf-8"))
        assert spec.get("title") and spec.get("threat") and spec.get("steps"), f"{folder.name}: incomplete"
        for step in spec["steps"]:
            assert set(step) <= _STEP_KEYS, f"{folder.name}: unknown step keys {sorted(set(step) - _STEP_KEYS)}"
            assert step.get("expect"), f"{folder.name}: a step without expectations"
    readme = (ATTACKS_DIR / "README.md").read_text(encoding="utf-8")
    threats = (ROOT / "sandbox" / "THREATS.md").read_text(encoding="utf-8")
    for folder in ATTACKS:
        assert folder.name in readme, f"{folder.name} is not listed in sandbox/attacks/README.md"
        assert folder.name in threats, f"{folder.name} is not in the table of sandbox/THREATS.md"


def _run_attack(folder: Path, level: str, bait: Bait, tmp: Path) -> list[str]:
    """Materialize one attack at one isolation level, run its steps, and return every violated expectation."""
    server = _CanaryServer(bait.canary)
    # A socket path must fit in 108 bytes: not under pytest's (possibly deep) temp dir.
    sock_dir = Path(tempfile.mkdtemp(prefix="sc-sock-", dir="/tmp"))
    os.chmod(sock_dir, 0o755)
    unix = _UnixCanaryServer(bait.canary, str(sock_dir / "canary.sock"))
    try:
        attack = _materialize(folder, bait, tmp, server, unix, level)
        assert attack.user_tree is not None
        digest, modes = _tree_digest(attack.user_tree), bait.modes()
        runner = _Runner(attack)
        failures: list[str] = []
        try:
            for n, step in enumerate(attack.spec["steps"], 1):
                result = runner.run(step)
                failures += _check_step(n, step, result, bait)
                failures += _check_survivors(attack, f"step {n}")
        finally:
            runner.close()
            failures += _check_after(attack, bait, digest, modes)
        return failures
    finally:
        server.close()
        unix.close()
        shutil.rmtree(sock_dir, ignore_errors=True)


def _skip_reason(spec: dict[str, Any], level: str) -> str | None:
    named = spec.get("policy", {}).get("isolation")
    if named and not FORCED_ISOLATION and named != level:
        return f"the attack is about the {named} level"
    for req in spec.get("requires", []):
        reason = _requirement_missing(req)
        if reason:
            return reason
    return None


def _load(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "attack.json").read_text(encoding="utf-8"))


def _params() -> list[Any]:
    """(level, attack) pairs: every attack at every level that works here; one that names a level runs there."""
    out = []
    for folder in ATTACKS:
        named = _load(folder).get("policy", {}).get("isolation")
        for level in LEVELS_HERE:
            if FORCED_ISOLATION or not named or named == level:
                out.append(pytest.param(level, folder, id=f"{level}/{folder.name}"))
        if named and named not in LEVELS_HERE and not FORCED_ISOLATION:
            out.append(pytest.param(named, folder, id=f"{named}/{folder.name}"))
    return out


@pytest.fixture(scope="module")
def corpus(bait: Bait, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Any:
    """Start every selected attack at once (JOBS at a time); each test waits for its own result."""
    selected = [(item.callspec.params["level"], item.callspec.params["folder"]) for item in request.session.items
                if getattr(item, "originalname", "") == "test_attack" and hasattr(item, "callspec")]
    # Load the tool registry and the lazily imported modules once, here, not concurrently in the workers.
    from showcause.tools.registry import all_tools
    all_tools()
    with contextlib.suppress(ImportError):
        import showcause.symbols  # noqa: F401
    pool = ThreadPoolExecutor(max_workers=JOBS, thread_name_prefix="attack")
    futures: dict[tuple[str, Path], Future[list[str]]] = {}
    for level, folder in selected:
        if level in LEVELS_HERE and _skip_reason(_load(folder), level) is None:
            tmp = tmp_path_factory.mktemp(f"{level}-{folder.name}")
            futures[(level, folder)] = pool.submit(_run_attack, folder, level, bait, tmp)
    try:
        yield futures
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def test_every_host_runs_the_corpus_or_refuses() -> None:
    """Where no level that hides the host works, the corpus cannot run: then repository code must be refused."""
    if LEVELS_HERE:
        assert all(lv in (*SAFE_LEVELS, "none") for lv in LEVELS_HERE)
        return
    proc = subprocess.run([str(CLI), "review", "--case", str(ROOT / "repo_cases" / "py-invoice-vat-grouping"),
                           "--format", "json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3 and json.loads(proc.stdout)["error"]["code"] == "SANDBOX_UNAVAILABLE", proc.stderr


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("level", "folder"), _params())
def test_attack(level: str, folder: Path, corpus: dict[tuple[str, Path], Future[list[str]]],
                request: pytest.FixtureRequest) -> None:
    spec = _load(folder)
    if level not in LEVELS_HERE:
        # The attack is about a level that does not work on this host: it must be refused there, not run.
        case = ROOT / "repo_cases" / "py-invoice-vat-grouping"
        proc = subprocess.run([str(CLI), "tools", "run", "run_test", "--case", str(case), "--isolation", level,
                               "--args", '{"test": "tests/test_invoice.py"}'], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 3 and "refused" in proc.stdout and "repository code is not run" in proc.stdout
        return
    reason = _skip_reason(spec, level)
    if reason:
        pytest.skip(reason)
    known = spec.get("known_escape") or spec.get("known_bug")
    if known and not FORCED_ISOLATION:
        label = "known escape" if spec.get("known_escape") else "known bug"
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"{label}: {known}"))
    failures = corpus[(level, folder)].result()
    assert not failures, f"{folder.name} at {level}: {spec['title']}\n" + "\n".join(failures)
