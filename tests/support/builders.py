"""Builders for small real projects and repo cases used across the test suite."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

__all__ = ["git_repo", "make_case", "write_tree"]


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def make_case(root: Path, base: dict[str, str | bytes], head: dict[str, str | bytes | None],
              checks: dict[str, object] | None = None, truth: dict[str, object] | None = None) -> Path:
    """A repo case: base/ from `base`, patch.diff = the change to `head` (None deletes a file)."""
    write_tree(root / "base", base)
    work = root / "_head"
    write_tree(work, base)
    for rel, content in head.items():
        if content is None:
            (work / rel).unlink()
        else:
            write_tree(work, {rel: content})
    proc = subprocess.run(["git", "diff", "--no-index", "--no-color", "base", "_head"], cwd=root,
                          capture_output=True, text=True)
    patch = proc.stdout.replace("a/base/", "a/").replace("b/_head/", "b/")
    (root / "patch.diff").write_text(patch, encoding="utf-8")
    subprocess.run(["rm", "-rf", str(work)], check=True)
    doc = {"id": root.name, "title": "test case", "language": "python",
           "input": {"task": "t", "plan": "p", "constraints": [], "context": "", "decision_type": "other",
                     "risk_level": "low"},
           "checks": checks or {"tests": [], "typecheck": "none"},
           "truth": truth or {"status": "defect", "kind": "test", "issue": "TRUTH-SENTINEL-7f3a"}}
    (root / "case.json").write_text(json.dumps(doc), encoding="utf-8")
    return root


def git_repo(root: Path, commits: list[dict[str, str | None]]) -> Path:
    """A git repository with one commit per dict (None deletes a file)."""
    root.mkdir(parents=True, exist_ok=True)
    env_args = ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    for i, files in enumerate(commits):
        for rel, content in files.items():
            path = root / rel
            if content is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run(["git", *env_args, "commit", "-q", "-m", f"c{i}"], cwd=root, check=True)
    return root
