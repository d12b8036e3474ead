"""Host processes (showcause.core.hostproc and its users): nothing of a reviewed tree runs in them.

Each test makes the working directory hostile the way a checkout under review would be — modules that
shadow the standard library, programs named like the ones showcause starts, relative PATH entries — and
checks that the child neither imports nor executes any of it, and gets no secret.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import showcause.sandbox.toolchain as toolchain
import showcause.symbols.pool as workers
from showcause.core.hostproc import HOST_CWD, host_env, isolated_python, safe_path, sanitize_process_path, which
from showcause.core.rg import rg_binary, rg_env
from showcause.providers.keys import CommandKey
from showcause.snapshot.gitcmd import git
from showcause.symbols.cache import digest_of

SECRET = "sk-host-process-secret"


def hostile_program(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho \"$0 ran\" >> {marker}\nexit 1\n", encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def hostile_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(tree, marker): the working directory is a tree whose modules and programs append to `marker`."""
    tree, marker = tmp_path / "tree", tmp_path / "escaped.txt"
    payload = f"open({str(marker)!r}, 'a').write(__name__ + ' imported\\n')\n"
    for rel in ("pickle.py", "json.py", "struct.py", "os.py", "sitecustomize.py", "usercustomize.py",
                "encodings/__init__.py"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(payload, encoding="utf-8")
    (tree / "escape.pth").write_text(f"import os; {payload}", encoding="utf-8")
    for name in ("git", "rg", "node", "sh"):
        hostile_program(tree / name, marker)
        hostile_program(tree / "node_modules" / ".bin" / name, marker)
    monkeypatch.chdir(tree)
    monkeypatch.setenv("PATH", os.pathsep.join([".", "", "node_modules/.bin", os.environ.get("PATH", "")]))
    for var in ("OPENAI_API_KEY", "PYTHONSTARTUP", "NODE_OPTIONS"):
        monkeypatch.setenv(var, SECRET if var == "OPENAI_API_KEY" else "./pickle.py")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([".", "node_modules"]))
    return tree, marker


def test_safe_path_keeps_only_absolute_directories_in_order() -> None:
    assert safe_path(":.:/usr/bin:node_modules/.bin::/bin/../usr/bin:/opt/x/:bin:./y") == "/usr/bin:/opt/x"
    assert safe_path("") == safe_path(".:relative") == "/usr/local/bin:/usr/bin:/bin"


def test_safe_path_reads_this_process_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", ".:/usr/bin")
    assert safe_path() == "/usr/bin"
    sanitize_process_path()
    assert os.environ["PATH"] == "/usr/bin"


def test_which_never_resolves_through_a_relative_entry(hostile_cwd: tuple[Path, Path]) -> None:
    tree, _ = hostile_cwd
    for name in ("git", "sh"):
        found = which(name)
        assert found is not None and os.path.isabs(found), found
        assert not found.startswith(str(tree)), found
    assert which("rg-surely-not-installed") is None
    for bad in ("./git", "bin/git", "", ".."):
        with pytest.raises(ValueError):
            which(bad)


def test_host_env_is_an_allowlist(hostile_cwd: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = host_env({"LC_ALL": "C"})
    assert env == {"LANG": "C.UTF-8", "PATH": safe_path(), "LC_ALL": "C"}
    assert "" not in env["PATH"].split(os.pathsep) and "." not in env["PATH"].split(os.pathsep)


def test_isolated_python_argv() -> None:
    argv = isolated_python("showcause.symbols.extract_worker")
    assert argv[0] == os.path.abspath(sys.executable) and argv[1] == "-I" and argv[2] == "-c"
    assert "from showcause.symbols.extract_worker import main" in argv[3]
    assert Path(argv[4], "showcause", "core", "hostproc.py").is_file()  # the package parent, named explicitly
    with pytest.raises(ValueError):
        isolated_python("os; import evil")


def test_the_symbol_worker_starts_isolated_outside_the_callers_directory(
    hostile_cwd: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake_popen(argv: list[str], **kwargs: Any) -> Any:
        seen.update(kwargs, argv=argv)
        raise OSError("not started")

    monkeypatch.setattr(workers.subprocess, "Popen", fake_popen)
    with pytest.raises(OSError):
        workers._Worker()
    assert seen["argv"][1] == "-I"
    assert seen["cwd"] == HOST_CWD != os.getcwd()
    assert seen["env"] == host_env()
    assert SECRET not in str(seen["env"]) and not any(k.startswith(("PYTHON", "NODE")) for k in seen["env"])


def test_the_symbol_worker_imports_nothing_of_a_hostile_working_directory(hostile_cwd: tuple[Path, Path]) -> None:
    tree, marker = hostile_cwd
    source = tree / "app.py"
    source.write_bytes(b"def one():\n    return 1\n")
    worker = workers._Worker()
    try:
        [result] = worker.run([(str(source), "python", digest_of(source.read_bytes()))], None)
    finally:
        worker.close()
    assert isinstance(result, tuple) and "one" in result[0]
    assert not marker.exists(), marker.read_text()


def test_node_is_asked_for_its_v8_options_from_root_with_no_variable_of_ours(
    hostile_cwd: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen.update(kwargs, argv=argv)
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(toolchain.subprocess, "run", fake_run)
    toolchain._v8_options.cache_clear()
    try:
        toolchain._v8_options("/usr/bin/node")
    finally:
        toolchain._v8_options.cache_clear()
    assert seen["cwd"] == HOST_CWD and seen["env"] == host_env()


def test_ripgrep_is_an_absolute_path_with_an_allowlisted_environment(hostile_cwd: tuple[Path, Path]) -> None:
    tree, _ = hostile_cwd
    assert os.path.isabs(rg_binary()) and not rg_binary().startswith(str(tree))
    assert SECRET not in str(rg_env()) and rg_env()["LC_ALL"] == "C.UTF-8"


def test_git_runs_nothing_of_the_repository(hostile_cwd: tuple[Path, Path], tmp_path: Path) -> None:
    """Not the tree's `git`, and not a promisor remote's command when an object is missing."""
    tree, marker = hostile_cwd
    ident = ["-c", "user.name=a", "-c", "user.email=a@example.invalid"]
    real = {"PATH": safe_path(), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (["init", "-q", "-b", "main"], ["add", "app.py"], [*ident, "commit", "-qm", "x"]):
        (tree / "app.py").write_text("x = 1\n", encoding="utf-8")
        subprocess.run(["/usr/bin/env", "git", *argv], cwd=tree, env=real, check=True, capture_output=True)
    config = {"core.repositoryformatversion": "1", "extensions.partialClone": "evil", "remote.evil.promisor": "true",
              "remote.evil.url": f"ext::sh -c echo% fetched% >>{marker}", "protocol.ext.allow": "always"}
    for key, value in config.items():
        subprocess.run(["/usr/bin/env", "git", "config", key, value], cwd=tree, env=real, check=True)
    missing = git(["rev-parse", "--verify", "--quiet", "--end-of-options", "1" * 40 + "^{commit}"], cwd=tree,
                  check=False, discover=True)
    assert missing.returncode != 0
    assert git(["rev-parse", "--show-toplevel"], cwd=tree, discover=True).stdout.strip() == str(tree.resolve())
    assert not marker.exists(), marker.read_text()


def test_a_key_command_runs_from_root_and_never_a_program_of_the_tree(hostile_cwd: tuple[Path, Path]) -> None:
    _tree, marker = hostile_cwd
    assert CommandKey("pwd").get() == HOST_CWD
    assert CommandKey("echo $OPENAI_API_KEY").get() == SECRET  # the user's own command keeps their environment
    assert not marker.exists(), marker.read_text()
