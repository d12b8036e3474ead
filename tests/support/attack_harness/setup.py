"""Loading attacks and materializing one: its repository or case, placeholders, set-up, policy file."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attack_harness.bait import Bait, CanaryServer, UnixCanaryServer
from attack_harness.common import ATTACK_KEYS, ATTACKS_DIR, FORCED_ISOLATION, GIT_ENV, ROOT

# ----------------------------------------------------------------------------------------------------------------
# Bait: canary secrets, canary files and canary servers
# ----------------------------------------------------------------------------------------------------------------


def attack_dirs() -> list[Path]:
    if not ATTACKS_DIR.is_dir():
        return []
    return sorted(p for p in ATTACKS_DIR.iterdir() if p.is_dir() and re.match(r"\d\d+-", p.name))


def substitute(text: str, subs: dict[str, str]) -> str:
    for key, value in subs.items():
        text = text.replace(key, value)
    leftover = re.findall(r"@@[A-Z_]+@@", text)
    if leftover:
        raise ValueError(f"unknown placeholder(s) {sorted(set(leftover))}")
    return text


def substitute_tree(root: Path, subs: dict[str, str]) -> None:
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


def apply_setup(root: Path, setup: dict[str, Any]) -> None:
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
        env = {**os.environ, **GIT_ENV}
        for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "hostile"]):
            subprocess.run(["git", *argv], cwd=root, env=env, check=True, capture_output=True)
        for key, value in git.get("config", {}).items():
            subprocess.run(["git", "config", key, value], cwd=root, env=env, check=True)
        crafted = git.get("crafted_commit")
        if crafted:
            crafted_commit(root, crafted, env)
        # After the commit: swap committed directories for symlinks (the index still lists their files).
        for link, target in git.get("then_symlinks", {}).items():
            remove_path(root / link)
            os.symlink(target, root / link)


def crafted_commit(root: Path, spec: dict[str, Any], env: dict[str, str]) -> None:
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


def tree_digest(root: Path) -> str:
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
    server: CanaryServer | None = None
    unix: UnixCanaryServer | None = None

    @property
    def name(self) -> str:
        return self.folder.name


def attack_policy(spec: dict[str, Any], level: str) -> dict[str, dict[str, Any]]:
    """The attack's policy sections, with `[process] isolation` the level it runs at unless it names one."""
    policy = {section: dict(keys) for section, keys in spec.get("policy", {}).items()}
    process = policy.setdefault("process", {})
    if FORCED_ISOLATION or "isolation" not in process:
        process["isolation"] = level
    return policy


def toml_text(doc: dict[str, dict[str, Any]]) -> str:
    lines = []
    for section, keys in doc.items():
        lines.append(f"[{section}]")
        # JSON scalars and string lists are valid TOML
        lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    return "\n".join(lines) + "\n"


def materialize(folder: Path, bait: Bait, tmp: Path, server: CanaryServer, unix: UnixCanaryServer,
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
    spec = json.loads(substitute(spec_text, subs))
    unknown = set(spec) - ATTACK_KEYS
    assert not unknown, f"{folder.name}: unknown attack.json keys {sorted(unknown)}"
    attack = Attack(folder, spec, subs, tmp, marker, level, kind, user_tree, server=server, unix=unix)
    base = user_tree / "base" if kind == "case" else user_tree
    if (folder / "repo").is_dir():
        shutil.copytree(folder / "repo", base, symlinks=True)
    else:
        base.mkdir(parents=True)
    substitute_tree(base, subs)
    apply_setup(base, spec.get("setup", {}))
    if kind == "case":
        write_case(attack, base)
    policy = attack_policy(spec, level)
    if policy:
        attack.config = tmp / "policy.toml"
        attack.config.write_text(toml_text(policy), encoding="utf-8")
    return attack


def write_case(attack: Attack, base: Path) -> None:
    """A repo case: base/ = repo/, patch.diff = the attack's patch.diff or the change to repo/ + head/."""
    folder, case_dir, inp = attack.folder, attack.user_tree, attack.spec.get("input", {})
    assert case_dir is not None
    if (folder / "patch.diff").is_file():
        patch = substitute((folder / "patch.diff").read_text(encoding="utf-8"), attack.subs)
    else:
        work = case_dir / "_head"
        shutil.copytree(base, work, symlinks=True)
        if (folder / "head").is_dir():
            shutil.copytree(folder / "head", work, symlinks=True, dirs_exist_ok=True)
        substitute_tree(work, attack.subs)
        # Big files the change adds, made here rather than committed (same format as setup.files).
        apply_setup(work, {"files": attack.spec.get("setup", {}).get("head_files", [])})
        proc = subprocess.run(["git", "diff", "--no-index", "--no-color", "--binary", "--", "base", "_head"],
                              cwd=case_dir, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
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


def remove_path(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
