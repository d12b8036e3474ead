"""What every sandboxed pytest process of showcause shares: its out dir, its command line and what it says
about itself (which pytest, from which environment)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from functools import cache
from pathlib import Path

from showcause.core import jsonsafe
from showcause.policy import Policy
from showcause.sandbox.projectenv import ProjectEnv

__all__ = ["about_run", "prepare_out", "pytest_argv", "pytest_env"]

_HERE = Path(__file__).resolve().parent
# showcause's pytest, pytest-timeout and what they import: the fallback a project's environment may lack.
_FALLBACK = ("pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments", "pytest_timeout")
_VERSION = re.compile(r"[0-9A-Za-z.+-]{1,40}\Z")


@cache
def _fallback_paths() -> tuple[tuple[str, str], ...]:
    """(link name, path) of each fallback module or package in showcause's own environment."""
    out = []
    for name in _FALLBACK:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            continue
        if spec.submodule_search_locations:
            out.append((name, str(Path(spec.origin).parent)))
        else:
            out.append((os.path.basename(spec.origin), spec.origin))
    return tuple(out)


def prepare_out(out: Path) -> None:
    """The report plugin, the sitecustomize that appends the fallback, and the fallback's links."""
    for name in ("report.jsonl", "collected.jsonl", "pytest.json"):
        (out / name).unlink(missing_ok=True)
    shutil.copy(_HERE / "_pytest_report.py", out / "_pytest_report.py")
    shutil.copy(_HERE / "_pytest_load_tests.py", out / "_pytest_load_tests.py")
    shutil.copy(_HERE / "_pytest_site.py", out / "sitecustomize.py")
    links = out / "_showcause_pytest"
    if not links.is_dir():
        links.mkdir()
        for name, path in _fallback_paths():
            (links / name).symlink_to(path)


def pytest_argv(env: ProjectEnv, policy: Policy, *options: str) -> list[str]:
    """`python -m pytest` of the project's interpreter, with the report plugin and showcause's options last.

    `--rootdir=.`: the directory the process starts in (the root, or a monorepo package), given after the
    project's own addopts so no config can move it. The policy's `[tests] pytest_args` (the options the project's
    CI gives pytest on its command line) come before showcause's own."""
    return [env.python, "-m", "pytest", *policy.tests.pytest_args, "-p", "no:cacheprovider", "-p", "_pytest_report",
            "-p", "_pytest_load_tests", "-q", "--rootdir=.", f"--timeout={policy.process.test_timeout_s}", "-o",
            "console_output_style=classic", *options]


def pytest_env(env: ProjectEnv, **extra: str) -> dict[str, str]:
    """The variables of a run. In showcause's own environment only the plugins named here load (its own
    installed plugins must not shape the project's tests); in the project's its installed plugins load, as
    when its developers run pytest."""
    path = ":".join(["{out}", *(f"{{root}}/{p}" for p in env.pythonpath)])   # a case's checks.env.pythonpath
    out = {"SHOWCAUSE_REPORT": "{out}/report.jsonl", "SHOWCAUSE_ROOT": "{root}", "PYTHONPATH": path, **extra}
    if env.own:
        out["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return out


def about_run(out: Path, env: ProjectEnv) -> str:
    """Which pytest ran and from where, e.g. "pytest 8.3.4 from the project's environment (python 3.12.3,
    the repository's .venv)"; "" when the run never got as far as loading the plugin."""
    try:
        info = jsonsafe.load_file(out / "pytest.json", max_bytes=4096)   # written by the code under test's process
    except (OSError, ValueError):
        return ""
    if not isinstance(info, dict):
        return ""
    version, python = (str(info.get(k, "")) for k in ("pytest", "python"))
    version = version if _VERSION.match(version) else "?"
    python = python if _VERSION.match(python) else "?"
    where = "showcause's" if env.own or info.get("injected") is True else "the project's environment"
    text = f"pytest {version} from {where} (python {python}, {env.origin})"
    return "; ".join([text, *env.notes])
