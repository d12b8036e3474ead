"""The changes of a project: mutants of its source, and deletions and renames of its tests.

Mutants are made mechanically, at random with a recorded seed: one token of one source file replaced by its
opposite (a comparison, an arithmetic or boolean operator, a boolean constant, a small integer). Whether a
mutant breaks a test, or even parses, is not decided here: the truth run says. A test deletion removes one
test function from a test file; a rename gives it a new name. Each change is one commit on a branch of the
project's repository, so a review sees it as a stranger's pull request would be seen.
"""

from __future__ import annotations

import ast
import glob
import io
import random
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from .projects import BASE, Project, git

__all__ = ["Change", "make_changes"]

# `in` and `*` also serve loops and unpacking: not mutated, so that most mutants still parse.
_PY_SWAP = {"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">", "+": "-", "-": "+",
            "and": "or", "or": "and", "True": "False", "False": "True"}
_JS_SWAP = {"===": "!==", "!==": "===", "==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">",
            "&&": "||", "||": "&&", "true": "false", "false": "true", "+": "-", "-": "+"}
_JS_TOKEN = re.compile(r"===|!==|==|!=|<=|>=|&&|\|\||\btrue\b|\bfalse\b|(?<![<>=!+\-])[<>](?![<>=])|"
                       r"(?<![+\-])[+\-](?![+\-=])|\b\d+\b")


@dataclass(frozen=True)
class Change:
    id: str            # project/kind-n
    project: str
    kind: str          # mutant | test-deletion | test-rename | upstream | revert | fix-reverted
    branch: str
    file: str
    line: int
    description: str
    removed_tests: tuple[str, ...] = ()   # test names the change takes away (deleted or renamed)
    base: str = BASE                      # the ref the change is made on (an upstream change: the previous release)


def _files(repo: Path, patterns: tuple[str, ...]) -> list[str]:
    found: set[str] = set()
    for pattern in patterns:
        for path in glob.glob(pattern, root_dir=repo, recursive=True):
            if (repo / path).is_file():
                found.add(path)
    return sorted(found)


def _py_sites(text: str) -> list[tuple[int, int, str, str]]:
    """(line, column, token, replacement) for every token a mutant may replace."""
    sites = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for tok in tokens:
        if tok.type in (tokenize.OP, tokenize.NAME) and tok.string in _PY_SWAP:
            sites.append((tok.start[0], tok.start[1], tok.string, _PY_SWAP[tok.string]))
        elif tok.type == tokenize.NUMBER and tok.string.isdigit() and len(tok.string) < 4:
            value = int(tok.string)
            sites.append((tok.start[0], tok.start[1], tok.string, str(value + 1 if value != 1 else 0)))
    return sites


def _js_sites(text: str) -> list[tuple[int, int, str, str]]:
    sites = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        if code.lstrip().startswith(("*", "/*", "import ", "export ")) or "`" in code:
            continue
        for m in _JS_TOKEN.finditer(code):
            if code[: m.start()].count("'") % 2 or code[: m.start()].count('"') % 2:
                continue   # inside a string
            tok = m.group()
            repl = _JS_SWAP.get(tok) or str(int(tok) + 1 if int(tok) != 1 else 0)
            sites.append((number, m.start(), tok, repl))
    return sites


def _apply(text: str, line: int, col: int, old: str, new: str) -> str:
    lines = text.splitlines(keepends=True)
    target = lines[line - 1]
    assert target[col : col + len(old)] == old, (target, col, old)
    lines[line - 1] = target[:col] + new + target[col + len(old) :]
    return "".join(lines)


def _commit(repo: Path, branch: str, path: str, text: str | None, message: str) -> None:
    git(repo, "checkout", "-q", "-B", branch, BASE)
    if text is None:
        git(repo, "rm", "-q", path)
    else:
        (repo / path).write_text(text, encoding="utf-8")
        git(repo, "add", path)
    git(repo, "commit", "-q", "--no-verify", "-m", message)
    git(repo, "checkout", "-q", BASE)


def _mutants(project: Project, repo: Path, rng: random.Random, count: int) -> list[Change]:
    sites: list[tuple[str, int, int, str, str]] = []
    for path in _files(repo, project.sources):
        text = (repo / path).read_text(encoding="utf-8", errors="replace")
        finder = _py_sites if path.endswith(".py") else _js_sites
        sites.extend((path, *site) for site in finder(text))
    changes = []
    for n, (path, line, col, old, new) in enumerate(rng.sample(sites, min(count, len(sites)))):
        text = (repo / path).read_text(encoding="utf-8")
        branch = f"oracle/mutant-{n}"
        description = f"{path}:{line}: {old} -> {new}"
        _commit(repo, branch, path, _apply(text, line, col, old, new), description)
        changes.append(Change(f"{project.name}/mutant-{n}", project.name, "mutant", branch, path, line, description))
    return changes


def _py_tests(text: str) -> list[tuple[str, int, int]]:
    """(qualified name, first line, last line) of each test function of a Python test file."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found = []
    for node in tree.body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        for member in members:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name.startswith("test"):
                first = min([member.lineno, *(d.lineno for d in member.decorator_list)])
                name = f"{node.name}.{member.name}" if isinstance(node, ast.ClassDef) else member.name
                found.append((name, first, member.end_lineno or member.lineno))
    return found


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def _js_test_edits(project: Project, repo: Path, rng: random.Random, count: int) -> list[Change]:
    from .jstests import js_tests

    changes = []
    found = js_tests(repo, project.tests)
    for n, test in enumerate(rng.sample(found, min(count, len(found)))):
        data = (repo / test.file).read_bytes()
        if n % 2 == 0:
            kind, new = "test-deletion", data[: test.start] + data[test.end :]
            what = f"{test.file}: delete {test.titles}"
        else:
            kind = "test-rename"
            new = data[: test.title_end] + b" (renamed)" + data[test.title_end :]
            what = f"{test.file}: rename {test.titles} to '{test.titles[-1]} (renamed)'"
        branch = f"oracle/{kind}-{n}"
        _commit(repo, branch, test.file, new.decode("utf-8", "replace"), what)
        changes.append(Change(f"{project.name}/{kind}-{n}", project.name, kind, branch, test.file, test.line, what,
                              (f"{test.file}::{test.titles[-1]}",)))
    return changes


def _test_edits(project: Project, repo: Path, rng: random.Random, count: int) -> list[Change]:
    if project.language != "python":
        return _js_test_edits(project, repo, rng, count)
    candidates = []
    for path in _files(repo, tuple(f"{t.rstrip('/')}/**/test*.py" for t in project.tests)):
        text = (repo / path).read_text(encoding="utf-8", errors="replace")
        candidates.extend((path, *test) for test in _py_tests(text))
    changes = []
    for n, (path, name, first, last) in enumerate(rng.sample(candidates, min(count, len(candidates)))):
        text = (repo / path).read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        short = name.rsplit(".", 1)[-1]
        if n % 2 == 0:
            kind, new = "test-deletion", "".join(lines[: first - 1] + lines[last:])
            what = f"{path}: delete {name}"
            if not _parses(new):   # the last method of its class: the class keeps a body
                indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
                new = "".join([*lines[: first - 1], f"{indent}pass\n", *lines[last:]])
        else:
            kind = "test-rename"
            line = next(i for i in range(first - 1, last) if f"def {short}" in lines[i])
            lines[line] = lines[line].replace(f"def {short}", f"def {short}_renamed", 1)
            new, what = "".join(lines), f"{path}: rename {name} to {short}_renamed"
        branch = f"oracle/{kind}-{n}"
        _commit(repo, branch, path, new, what)
        changes.append(Change(f"{project.name}/{kind}-{n}", project.name, kind, branch, path, first, what,
                              (f"{path}::{name.replace('.', '::')}",)))
    return changes


def make_changes(project: Project, repo: Path, seed: int, mutants: int, test_edits: int,
                 work: Path) -> list[Change]:
    """The project's changes, the same for the same seed (each made once; a branch is made again if asked)."""
    from .releases import fix_changes, release_changes

    rng = random.Random(f"{seed}:{project.name}")
    released = [Change(f"{project.name}/{branch.removeprefix('oracle/')}", project.name, kind, branch, "", 0, what,
                       base=base)
                for kind, base, branch, what in release_changes(project, repo) + fix_changes(project, repo, work)]
    return _mutants(project, repo, rng, mutants) + _test_edits(project, repo, rng, test_edits) + released
