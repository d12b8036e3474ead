"""Access is decided by where git reads a repository from, not by where a `.git` entry sits: a `.git` file
whose `gitdir:` names another repository, or a `core.worktree` elsewhere, is refused by the MCP roots check
and by the CLI (INVALID_INPUT, exit 2), never an internal error; a linked worktree inside the roots works."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from builders import git_repo
from showcause.mcpserver import Roots, ServerConfig, build_server
from venvs import cli

SECRET = "def secret():\n    return 'outside the roots'\n"


def _search(cfg: ServerConfig, repo: Path) -> Any:
    async def go() -> Any:
        async with Client(build_server(cfg)) as client:
            return await client.call_tool("search", {"repo": str(repo), "pattern": "secret"})
    return anyio.run(go)


def _error(result: Any) -> dict[str, str]:
    assert result.is_error is True, result
    return json.loads(result.content[0].text)["error"]


def _roots(tmp_path: Path) -> tuple[Path, Path, ServerConfig]:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    git_repo(outside, [{"secret.py": SECRET}])
    return inside, outside, ServerConfig(roots=Roots.of([inside]))


def test_a_gitdir_file_naming_another_repository_is_refused(tmp_path: Path) -> None:
    inside, outside, cfg = _roots(tmp_path)
    forged = inside / "forged"
    forged.mkdir()
    (forged / ".git").write_text(f"gitdir: {outside / '.git'}\n")
    err = _error(_search(cfg, forged))
    assert err["code"] == "INVALID_INPUT"
    assert f"outside the allowed roots ({inside}): git reads it from {outside / '.git'}" in err["message"]


def test_a_work_tree_moved_outside_the_roots_is_refused(tmp_path: Path) -> None:
    inside, outside, cfg = _roots(tmp_path)
    moved = git_repo(inside / "moved", [{"a.py": "x = 1\n"}])
    subprocess.run(["git", "config", "core.worktree", str(outside)], cwd=moved, check=True)
    err = _error(_search(cfg, moved))
    assert err["code"] == "INVALID_INPUT" and "outside the allowed roots" in err["message"]


def test_a_work_tree_that_does_not_hold_the_repository_is_refused(tmp_path: Path) -> None:
    inside, _, cfg = _roots(tmp_path)
    (inside / "elsewhere").mkdir()
    moved = git_repo(inside / "moved", [{"a.py": "x = 1\n"}])
    subprocess.run(["git", "config", "core.worktree", str(inside / "elsewhere")], cwd=moved, check=True)
    err = _error(_search(cfg, moved))
    assert err["code"] == "INVALID_INPUT"
    assert err["message"] == f"repo {str(moved)!r}: git's work tree for it is {inside / 'elsewhere'}, which does " \
        "not hold it"


def test_a_linked_worktree_inside_the_roots_is_reviewed(tmp_path: Path) -> None:
    inside = tmp_path / "in"
    main = git_repo(inside / "main", [{"secret.py": SECRET}])
    subprocess.run(["git", "worktree", "add", "-q", str(inside / "wt")], cwd=main, check=True)
    result = _search(ServerConfig(roots=Roots.of([inside])), inside / "wt")
    assert result.is_error is False, result
    assert "secret.py" in json.dumps(result.structured_content)


def test_the_cli_refuses_a_work_tree_elsewhere_with_exit_2(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    moved = git_repo(tmp_path / "moved", [{"a.py": "x = 1\n"}])
    subprocess.run(["git", "config", "core.worktree", str(tmp_path / "elsewhere")], cwd=moved, check=True)
    proc = cli("review", "--repo", str(moved), "--format", "json")
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert proc.stderr.strip() == (f"showcause: error: {moved}: git's work tree for it is {tmp_path / 'elsewhere'} "
                                   "(core.worktree or a `gitdir:` file points elsewhere), which does not hold it; "
                                   "review that work tree by its own path")
