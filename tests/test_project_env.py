"""The project's own interpreter and installed packages, in the sandbox: real virtualenvs with packages from
PyPI, reviewed through the real `showcause` executable.

`--python` wins over `[sandbox] python` of `--config`, which wins over the active VIRTUAL_ENV, which wins over
the repository's `.venv`; without any, showcause's own interpreter runs the tests and a missing package is the
tests' error. A repository's `.showcause.toml` may not name the interpreter. pytest comes from the project's
environment, else from showcause's without shadowing the project's packages; an editable install imports the
reviewed tree, never the working tree; a change to the dependencies is a WARNING.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from pathlib import Path

import pytest

from builders import git_repo, write_tree
from showcause.sandbox.projectenv import resolve_env
from venvs import cli, make_venv, review, run_test_output

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

PROJECT: dict[str, str | None] = {
    ".gitignore": ".venv/\n*.egg-info/\n",
    "shapes.py": "def area(box):\n    return box.w * box.h\n",
    "tests/test_shapes.py": (
        "import attrs\n"
        "import inflection\n"
        "\n"
        "from shapes import area\n"
        "\n"
        "\n"
        "@attrs.define\n"
        "class Box:\n"
        "    w: int\n"
        "    h: int\n"
        "\n"
        "\n"
        "def test_area_of_a_box():\n"
        "    assert area(Box(2, 3)) == 6\n"
        "\n"
        "\n"
        "def test_the_packages_are_the_projects():\n"
        "    assert (attrs.__version__, inflection.__version__) == ('23.2.0', '0.5.1')\n"
    ),
}
BROKEN = "def area(box):\n    return box.w + box.h\n"
EXTENDED = "def area(box):\n    return box.w * box.h\n\n\ndef perimeter(box):\n    return 2 * (box.w + box.h)\n"
AREA = "tests/test_shapes.py::test_area_of_a_box"
SHOWCAUSE_PYTEST = importlib.metadata.version("pytest")


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`full`: the project's packages and its own pytest 8.3.4 (no pytest-timeout); `bare`: the packages and
    older pins of two packages pytest needs, but no pytest at all."""
    # A package neither showcause's environment nor pyright's bundled stubs have: without the project's
    # environment it is missing.
    assert importlib.util.find_spec("inflection") is None
    root = tmp_path_factory.mktemp("venvs")
    return {"full": make_venv(root / "full", "attrs==23.2.0", "inflection==0.5.1", "pytest==8.3.4"),
            "bare": make_venv(root / "bare", "attrs==23.2.0", "inflection==0.5.1", "iniconfig==2.0.0",
                              "packaging==24.0")}


def _project(root: Path, venv: Path | None, head: str | None = BROKEN) -> Path:
    """The project committed, `.venv` linked to `venv`, and `head` as the uncommitted shapes.py."""
    repo = git_repo(root, [PROJECT])
    if venv is not None:
        (repo / ".venv").symlink_to(venv)
    if head is not None:
        (repo / "shapes.py").write_text(head, encoding="utf-8")
    return repo


def _run_test(repo: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    proc = cli("tools", "run", "run_test", "--repo", str(repo), "--args", json.dumps({"test": AREA}), *extra,
               env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_repositorys_venv_catches_a_regression_and_keeps_a_correct_change(venvs: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    repo = _project(tmp_path / "p", venvs["full"])
    code, doc = review("--repo", str(repo))
    assert (code, doc["verdict"]) == (1, "MODIFY"), doc
    assert AREA in doc["claims"][0]["claim"] and doc["claims"][0]["gate"]["status"] == "validated"
    out = run_test_output(doc)
    assert "pytest 8.3.4 from the project's environment (python " in out and "the repository's .venv)" in out
    assert doc["tool_calls"][0]["results"] == [
        {"test": AREA, "head": "failed", "base": "passed",
         "runs": {"head": ["failed", "failed", "failed"], "base": ["passed", "passed", "passed"]}},
        {"test": "tests/test_shapes.py::test_the_packages_are_the_projects", "head": "passed", "base": None}]
    (repo / "shapes.py").write_text(EXTENDED, encoding="utf-8")
    code, doc = review("--repo", str(repo))
    assert (code, doc["verdict"], doc["claims"]) == (0, "KEEP", []), doc


def test_without_an_environment_the_missing_package_is_the_tests_error(tmp_path: Path) -> None:
    repo = _project(tmp_path / "p", None)
    code, doc = review("--repo", str(repo))
    # Nothing ran to an outcome on either tree: no evidence, so INCONCLUSIVE with the module, the interpreter
    # that lacked it and the fix — never a KEEP.
    assert (code, doc["verdict"], doc["error"]["code"]) == (3, "INCONCLUSIVE", "PROBE_UNRUNNABLE"), doc
    message = doc["error"]["message"]
    assert message.startswith("tests/test_shapes.py: ModuleNotFoundError: No module named 'inflection'"), message
    assert f"(tests ran with pytest {SHOWCAUSE_PYTEST} from showcause's (python " in message
    assert "run with --python PATH (the project's interpreter)" in message


def test_python_wins_over_virtual_env_which_wins_over_the_repositorys_venv(venvs: dict[str, Path],
                                                                         tmp_path: Path) -> None:
    repo = _project(tmp_path / "p", venvs["bare"])
    full = venvs["full"] / "bin" / "python"
    assert f"pytest {SHOWCAUSE_PYTEST} from showcause's (python " in _run_test(repo)
    named = _run_test(repo, "--python", str(full), env={"VIRTUAL_ENV": str(venvs["bare"])})
    assert "pytest 8.3.4 from the project's environment (python 3." in named and f"--python {full})" in named
    active = _run_test(repo, env={"VIRTUAL_ENV": str(venvs["full"])})
    assert f"the active VIRTUAL_ENV {venvs['full']})" in active and "pytest 8.3.4" in active
    assert "FAILED tests/test_shapes.py::test_area_of_a_box [base: passed — broken by this change]" in named
    # A virtualenv directory names its interpreter too.
    assert "pytest 8.3.4 from the project's environment" in _run_test(repo, "--python", str(venvs["full"]))


def test_a_bad_python_is_bad_input(tmp_path: Path) -> None:
    repo = _project(tmp_path / "p", None)
    shim = write_tree(tmp_path, {"shim/python": "#!/bin/sh\nexec python3 \"$@\"\n"}) / "shim" / "python"
    shim.chmod(0o755)
    empty = tmp_path / "empty"
    empty.mkdir()
    for target, message in ((tmp_path / "missing", f"{tmp_path / 'missing'} does not exist"),
                            (shim, f"{shim} is not a Python interpreter but a script (a shim?)"),
                            (empty, f"{empty / 'bin' / 'python'} does not exist")):
        proc = cli("review", "--repo", str(repo), "--python", str(target))
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"showcause: error: --python: {message}"), proc.stderr


def test_sandbox_python_from_the_users_config_and_never_from_the_repository(venvs: dict[str, Path],
                                                                          tmp_path: Path) -> None:
    repo = _project(tmp_path / "p", None)
    config = tmp_path / "mine.toml"
    config.write_text(f'[sandbox]\npython = "{venvs["full"] / "bin" / "python"}"\n', encoding="utf-8")
    out = _run_test(repo, "--config", str(config))
    assert "pytest 8.3.4 from the project's environment (python 3." in out
    assert "named by [sandbox] python of --config)" in out
    hostile = git_repo(tmp_path / "h", [{**PROJECT, ".showcause.toml": f'[sandbox]\npython = "{venvs["full"]}"\n'}])
    (hostile / "shapes.py").write_text(BROKEN, encoding="utf-8")
    proc = cli("review", "--repo", str(hostile))
    assert proc.returncode == 2, proc.stderr
    assert (".showcause.toml of the base tree: [sandbox] python may not be set by the repository: it chooses "
            "which host directories are bound into the sandbox") in proc.stderr


def test_showcauses_pytest_is_injected_without_shadowing_the_projects_packages(venvs: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    pins = ("import importlib.metadata, iniconfig, packaging\n\n\ndef test_pins():\n"
            "    assert [importlib.metadata.version(n) for n in ('iniconfig', 'packaging')] == ['2.0.0', '24.0']\n"
            "    assert '/bare/lib/' in iniconfig.__file__ and '/bare/lib/' in packaging.__file__\n")
    repo = git_repo(tmp_path / "p", [{**PROJECT, "tests/test_pins.py": pins}])
    (repo / ".venv").symlink_to(venvs["bare"])
    (repo / "shapes.py").write_text(BROKEN, encoding="utf-8")
    proc = cli("tools", "run", "run_test", "--repo", str(repo), "--json",
               "--args", json.dumps({"test": ["tests/test_pins.py", "tests/test_shapes.py"]}))
    record = json.loads(proc.stdout)
    assert f"pytest {SHOWCAUSE_PYTEST} from showcause's (python 3." in record["output"]
    assert "the repository's .venv)" in record["output"]
    assert [(r["test"], r["head"]) for r in record["results"]] == [
        (AREA, "failed"), ("tests/test_pins.py::test_pins", "passed"),
        ("tests/test_shapes.py::test_the_packages_are_the_projects", "passed")], record["output"]
    assert not any(p.name.startswith(("pytest", "pluggy")) for p in (venvs["bare"] / "lib").rglob("*"))


def test_the_digest_of_an_environment_follows_what_is_installed(tmp_path: Path) -> None:
    venv = make_venv(tmp_path / "v")
    before = resolve_env(None, python=venv / "bin" / "python")
    assert before.origin.startswith("named by --python") and before.mounts == (
        resolve_env(None, python=venv).mounts) and before.python == str(venv.resolve() / "bin" / "python")
    assert [m.op for m in before.mounts] == ["ro"] and before.mounts[0].dst == str(venv.resolve())
    make_site = next((venv / "lib").glob("python*/site-packages"))
    (make_site / "extra-1.0.dist-info").mkdir()
    after = resolve_env(None, python=venv / "bin" / "python")
    assert after.packages != before.packages and after.cache_key() != before.cache_key()
    assert resolve_env(None).own and resolve_env(None).cache_key()["packages"] == ""


INVENTORY: dict[str, str | None] = {
    ".gitignore": ".venv/\n*.egg-info/\n",
    "pyproject.toml": ('[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n'
                       '[project]\nname = "inventory"\nversion = "0.1"\n\n[tool.setuptools.packages.find]\n'
                       'where = ["src"]\n'),
    "src/inventory/__init__.py": "def total(items):\n    return sum(items)\n",
    "tests/test_total.py": "from inventory import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n",
}


def test_an_editable_install_imports_the_reviewed_tree_not_the_working_tree(tmp_path: Path) -> None:
    """HEAD~1 is right, HEAD breaks total(), the working tree holds HEAD~1's code again: importing the working
    tree (where the editable install points) would find nothing to block."""
    repo = git_repo(tmp_path / "inv", [INVENTORY, {"src/inventory/__init__.py": "def total(items):\n"
                                                                                "    return sum(items) + 1\n"}])
    (repo / "src/inventory/__init__.py").write_text(INVENTORY["src/inventory/__init__.py"] or "", encoding="utf-8")
    make_venv(repo / ".venv", "-e", str(repo))
    pth = "".join(p.read_text() for p in (repo / ".venv").rglob("__editable__*inventory*"))
    assert str(repo / "src") in pth or "inventory" in pth     # the editable install names the working tree
    code, doc = review("--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD")
    assert (code, doc["verdict"]) == (1, "MODIFY"), run_test_output(doc)
    assert "tests/test_total.py::test_total" in doc["claims"][0]["claim"]
    assert "the repository's .venv)" in run_test_output(doc)
    # Without a sandbox the environment's paths lead to the working tree: the tests did not test the change,
    # so the review is no evidence (never a KEEP), and says why.
    code, doc = review("--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--isolation", "none")
    note = (f"isolation none: paths of the environment into the repository (editable installs) lead to the "
            f"working tree at {repo.resolve()}, not to the reviewed copy")
    assert note in doc["meta"]["warnings"] and note in doc["error"]["message"]
    assert (code, doc["verdict"], doc["error"]["code"]) == (3, "INCONCLUSIVE", "PROBE_UNRUNNABLE")
    assert doc["error"]["message"].startswith(f"tests/test_total.py: the tests imported inventory from {repo}/src/")


def test_pyright_resolves_imports_through_the_projects_interpreter(venvs: dict[str, Path], tmp_path: Path) -> None:
    repo = _project(tmp_path / "p", None, head=None)
    (repo / "table.py").write_text("import inflection\n\nTEXT: str = inflection.camelize('a_b')\n", encoding="utf-8")
    (repo / "py.typed").write_text("", encoding="utf-8")   # a project set up for type checking
    bare = cli("tools", "run", "typecheck", "--repo", str(repo))
    assert 'Import "inflection" could not be resolved' in bare.stdout, bare.stdout
    (repo / ".venv").symlink_to(venvs["full"])
    found = cli("tools", "run", "typecheck", "--repo", str(repo))
    assert found.stdout.startswith("T1 typecheck pyright: 0 errors on head"), found.stdout


def test_the_typecheck_base_cache_is_keyed_by_the_environment(venvs: dict[str, Path], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from showcause.policy import load_policy
    from showcause.tools.diagnostics import run_base_checker

    monkeypatch.setenv("SHOWCAUSE_CACHE_DIR", str(tmp_path / "cache"))
    tree = write_tree(tmp_path / "t", {"table.py": "import inflection\n"})
    policy, venv = load_policy(), resolve_env(None, python=venvs["full"])
    entries = []
    for env in (resolve_env(None), venv, resolve_env(None), venv):
        run = run_base_checker(tree, "pyright", policy, None, env)
        entries.append((len(list((tmp_path / "cache" / "base").glob("*.json"))), len(run.diagnostics)))
    assert entries == [(1, 1), (2, 0), (2, 1), (2, 0)]


def _fake_installation(root: Path) -> Path:
    """A Python installation by its files only (never run): an ELF `bin/python3.11` and `lib/python3.11/os.py`."""
    write_tree(root, {"bin/python3.11": b"\x7fELF" + bytes(60), "lib/python3.11/os.py": ""})
    (root / "bin/python3.11").chmod(0o755)
    return root / "bin/python3.11"


def test_the_binds_of_an_environment_are_its_virtualenv_its_installation_and_the_repository(tmp_path: Path) -> None:
    from showcause.sandbox.mounts import Mount

    exe = _fake_installation(tmp_path / "inst")
    inst = str((tmp_path / "inst").resolve())
    alone = resolve_env(None, python=exe)
    assert (alone.python, alone.mounts) == (f"{inst}/bin/python3.11", (Mount("ro", inst, inst),))
    repo = tmp_path / "repo"
    write_tree(repo, {".venv/pyvenv.cfg": f"home = {inst}/bin\n", "tests/test_a.py": ""})
    (repo / ".venv/bin").mkdir()
    (repo / ".venv/bin/python").symlink_to(exe)
    env = resolve_env(repo)
    source = str(repo.resolve())
    assert env.origin == "the repository's .venv" and env.python == "{root}/.venv/bin/python"
    assert env.mounts == (Mount("ro", inst, inst), Mount("ro", "{root}/.venv", f"{source}/.venv"),
                          Mount("symlink", source, "/ws"))
    assert env.notes == () and resolve_env(repo, isolation="none").notes[-1].startswith("isolation none: ")
    broken = tmp_path / "broken"
    write_tree(broken, {".venv/bin/python": "#!/bin/sh\n"})
    skipped = resolve_env(broken)
    assert skipped.own and skipped.notes == (f"the repository's .venv was not used: {broken / '.venv/bin/python'} "
                                             "is not an executable file",)


def test_an_environment_over_the_whole_file_system_or_the_repository_is_refused(tmp_path: Path) -> None:
    import shutil

    from showcause.core.errors import InputError

    exe = _fake_installation(tmp_path / "inst")
    # A committed .venv whose copied interpreter's pyvenv.cfg says `home = /`: the host's root would be bound.
    repo = tmp_path / "repo"
    write_tree(repo, {".venv/pyvenv.cfg": "home = /\n", "tests/test_a.py": ""})
    (repo / ".venv/bin").mkdir()
    shutil.copy(exe, repo / ".venv/bin/python")
    skipped = resolve_env(repo, environ={})
    assert skipped.own and skipped.mounts == ()
    assert skipped.notes == (f"the repository's .venv was not used: {repo / '.venv/bin/python'}: its installation "
                             "would be the whole file system (`/`); the project's environment must be a real "
                             "installation, which the sandbox binds as narrowly as it is",)
    # An installation that holds the repository under review (`--python` of one above it).
    inner = tmp_path / "inst" / "work" / "repo"
    write_tree(inner, {"tests/test_a.py": ""})
    with pytest.raises(InputError) as refused:
        resolve_env(inner, python=exe)
    inst = (tmp_path / "inst").resolve()
    assert refused.value.message == (f"--python: {exe}: its installation {inst} holds the repository under review; "
                                     "the project's environment must be a real installation, which the sandbox "
                                     "binds as narrowly as it is")


@pytest.mark.parametrize("given", ["link", "real"])
def test_an_editable_path_through_a_symlink_imports_the_reviewed_tree(tmp_path: Path, given: str) -> None:
    """The environment names the repository through a symlink (`link/inv/src` in a `.pth`), and an installed
    package of the same name sits in site-packages: were the copy not also at the linked path, the import
    would fall through to the installed package and find nothing to block (a symlinked work folder did this)."""
    broken = {"src/inventory/__init__.py": "def total(items):\n    return sum(items) + 1\n"}
    git_repo(tmp_path / "real" / "inv", [INVENTORY, broken])
    (tmp_path / "link").symlink_to(tmp_path / "real")
    venv = make_venv(tmp_path / "env")
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "inventory").mkdir()
    (site / "inventory" / "__init__.py").write_text("def total(items):\n    return sum(items)\n", encoding="utf-8")
    (site / "_inv.pth").write_text(f"import sys; sys.path[:0] = ['{tmp_path / 'link' / 'inv' / 'src'}']\n",
                                   encoding="utf-8")
    repo = tmp_path / given / "inv"
    code, doc = review("--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--python", str(venv))
    assert (code, doc["verdict"]) == (1, "MODIFY"), run_test_output(doc)
    assert "tests/test_total.py::test_total" in doc["claims"][0]["claim"]


def test_tests_that_import_an_installed_copy_of_the_project_are_inconclusive(tmp_path: Path) -> None:
    """A src layout whose tests import `inventory` and an environment with a (non-editable) installed copy of
    it: the tests run that copy, not the tree, and would pass whatever the change does. Never a KEEP."""
    repo = git_repo(tmp_path / "inv", [INVENTORY, {"src/inventory/__init__.py": "def total(items):\n"
                                                                                "    return sum(items) + 1\n"}])
    venv = make_venv(tmp_path / "env")
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "inventory").mkdir()
    (site / "inventory" / "__init__.py").write_text("def total(items):\n    return sum(items)\n", encoding="utf-8")
    code, doc = review("--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--python", str(venv))
    assert (code, doc["verdict"], doc["error"]["code"]) == (3, "INCONCLUSIVE", "PROBE_UNRUNNABLE")
    assert doc["error"]["message"].startswith(
        f"tests/test_total.py: the tests imported inventory from {site / 'inventory' / '__init__.py'}, a copy "
        "outside the tree under review"), doc["error"]["message"]
    assert "pip install -e ." in doc["error"]["message"]
