"""The real diff between two trees, computed by git, parsed into changed lines per file."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from showcause.snapshot.gitcmd import git

__all__ = ["Diff", "FileChange", "diff_trees", "parse_unified_diff"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class FileChange:
    path: str                                     # head path (base path for deletions)
    status: str = "modified"                      # added | deleted | modified
    binary: bool = False
    added: dict[int, str] = field(default_factory=dict)     # head line -> text
    removed: dict[int, str] = field(default_factory=dict)   # base line -> text
    hunks: list[tuple[int, int, int, int]] = field(default_factory=list)  # (old_start, old_len, new_start, new_len)

    def map_base_line(self, line: int) -> int | None:
        """Head line number of an unchanged base line, None if the line was removed."""
        shift = 0
        for old_start, old_len, _new_start, new_len in self.hunks:
            if old_len == 0:            # pure insertion after base line old_start
                if line <= old_start:
                    break
            elif line < old_start:
                break
            elif line < old_start + old_len:
                return None
            shift += new_len - old_len
        return line + shift


@dataclass
class Diff:
    files: dict[str, FileChange] = field(default_factory=dict)
    text: str = ""

    def added_lines(self, path: str) -> set[int]:
        change = self.files.get(path)
        return set(change.added) if change else set()

    def is_added(self, path: str, line: int) -> bool:
        change = self.files.get(path)
        return bool(change and line in change.added)

    @property
    def removed_text(self) -> list[str]:
        return [t for c in self.files.values() for t in c.removed.values()]


def _strip_prefix(raw: str, prefixes: tuple[str, ...]) -> str:
    # Never strip spaces: they belong to the name ('settings.json ' is another file); git ends such a
    # header with a tab, already split off.
    if raw.startswith('"') and raw.endswith('"'):
        raw = raw[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode(
            "utf-8", "replace")
    for p in prefixes:
        if raw.startswith(p):
            return raw[len(p):]
    return raw


def parse_unified_diff(text: str, prefixes: tuple[str, ...] = ("a/", "b/")) -> Diff:
    diff = Diff(text=text)
    current: FileChange | None = None
    old_path = new_path = ""
    old_line = new_line = 0
    # git ends lines with \n only; str.splitlines would also break inside a line at U+2028, \f, \v, \x85 …
    for line in (raw.removesuffix("\r") for raw in text.split("\n")):
        if line.startswith("diff --git "):
            current = None
            old_path = new_path = ""
            continue
        if line.startswith("--- ") and (current is None or not current.hunks):
            old_path = _strip_prefix(line[4:].split("\t")[0], prefixes)
            continue
        if line.startswith("+++ ") and (current is None or not current.hunks):
            new_path = _strip_prefix(line[4:].split("\t")[0], prefixes)
            status = "added" if old_path == "/dev/null" else "deleted" if new_path == "/dev/null" else "modified"
            path = old_path if status == "deleted" else new_path
            current = diff.files.setdefault(path, FileChange(path=path, status=status))
            continue
        if line.startswith("Binary files ") and line.endswith(" differ"):
            m = re.match(r"Binary files (.+?) and (.+?) differ", line)
            if m:
                a, b = (_strip_prefix(x, prefixes) for x in m.groups())
                path = a if b == "/dev/null" else b
                diff.files[path] = FileChange(path=path, binary=True,
                                              status="added" if a == "/dev/null" else "deleted" if b == "/dev/null"
                                              else "modified")
            continue
        m = _HUNK.match(line)
        if m and current is not None:
            o_s, o_l, n_s, n_l = (int(g) if g is not None else 1 for g in m.groups())
            current.hunks.append((o_s, o_l, n_s, n_l))
            old_line, new_line = o_s, n_s
            continue
        if current is None or not current.hunks:
            continue
        if line.startswith("+"):
            current.added[new_line] = line[1:]
            new_line += 1
        elif line.startswith("-"):
            current.removed[old_line] = line[1:]
            old_line += 1
        elif line.startswith(" "):
            old_line += 1
            new_line += 1
    return diff


def diff_trees(parent: Path, base_name: str = "base", head_name: str = "head") -> Diff:
    """Diff `parent/base_name` against `parent/head_name` (both plain directories)."""
    proc = git(["diff", "--no-index", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", "-U0",
                "--", base_name, head_name], cwd=parent, check=False)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"git diff failed: {proc.stderr.strip()}")
    return parse_unified_diff(proc.stdout, prefixes=(f"a/{base_name}/", f"b/{head_name}/"))


