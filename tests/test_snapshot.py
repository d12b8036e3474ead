import json
import os
import subprocess
from pathlib import Path

import pytest

from builders import git_repo, make_case, write_tree
from showcause.core.errors import InputError
from showcause.snapshot import default_base, from_case, from_dir, from_git, parse_unified_diff


def test_case_snapshot_has_real_changed_lines(tmp_path: Path):
    case = make_case(tmp_path / "c1", {"a.py": "x = 1\ny = 2\nz = 3\n"}, {"a.py": "x = 1\ny = 20\nz = 3\nw = 4\n"})
    with from_case(case) as snap:
        assert (snap.head / "a.py").read_text() == "x = 1\ny = 20\nz = 3\nw = 4\n"
        assert (snap.base / "a.py").read_text() == "x = 1\ny = 2\nz = 3\n"
        change = snap.diff.files["a.py"]
        assert change.added == {2: "y = 20", 4: "w = 4"}
        assert change.removed == {2: "y = 2"}
        assert not (snap.head / "case.json").exists() and not (snap.head.parent / "case.json").exists()
        assert snap.case is not None and snap.case.id == "c1"
        assert "TRUTH-SENTINEL" not in repr(snap.case)
        tmp = snap.head.parent
    assert not tmp.exists()


def test_changed_lines_come_from_the_trees_not_the_patch_text(tmp_path: Path):
    # A patch whose hunk header lies about line numbers still yields the real changed lines.
    case = make_case(tmp_path / "c", {"a.py": "a\nb\nc\nd\n"}, {"a.py": "a\nb\nc\nD\n"})
    text = (case / "patch.diff").read_text().replace("@@ -4 +4 @@", "@@ -4,1 +4,1 @@ def decoy():")
    (case / "patch.diff").write_text(text)
    with from_case(case) as snap:
        assert snap.diff.files["a.py"].added == {4: "D"}


def test_map_base_line_across_shifts():
    text = ("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n@@ -3,0 +4,2 @@\n+x\n+y\n"
            "@@ -6,2 +8,0 @@\n-e\n-f\n")
    change = parse_unified_diff(text).files["f"]
    assert [change.map_base_line(n) for n in range(1, 10)] == [1, None, 3, 6, 7, None, None, 8, 9]


def test_added_and_deleted_files(tmp_path: Path):
    case = make_case(tmp_path / "c", {"old.py": "gone = 1\n", "keep.py": "k = 1\n"},
                     {"old.py": None, "new.py": "n = 1\n"})
    with from_case(case) as snap:
        assert snap.diff.files["old.py"].status == "deleted"
        assert snap.diff.files["new.py"].status == "added"
        assert snap.diff.files["new.py"].added == {1: "n = 1"}
        assert not (snap.head / "old.py").exists()


@pytest.mark.parametrize("patch,message", [
    ("", "empty"),
    ("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-nothing like this\n+x\n", "does not apply"),
    ("diff --git a/img.png b/img.png\nnew file mode 100644\nindex 0000000..e69de29\nGIT binary patch\nliteral 3\n"
     "KcmZ?wbhH2b00;m8\n\nliteral 0\nHcmV?d00001\n\n", "binary-only"),
    ("diff --git a/../../evil b/../../evil\n--- a/../../evil\n+++ b/../../evil\n@@ -0,0 +1 @@\n+x\n", "does not apply"),
])
def test_bad_patches_are_input_errors(tmp_path: Path, patch: str, message: str):
    case = make_case(tmp_path / "c", {"a.py": "a = 1\n"}, {})
    (case / "patch.diff").write_text(patch)
    with pytest.raises(InputError, match=message):
        from_case(case)
    assert not (tmp_path / "evil").exists()


def test_not_a_case(tmp_path: Path):
    with pytest.raises(InputError, match="not a repo case"):
        from_case(tmp_path)
    (tmp_path / "base").mkdir()
    (tmp_path / "patch.diff").write_text("")
    (tmp_path / "case.json").write_text("{not json")
    with pytest.raises(InputError, match=r"case\.json"):
        from_case(tmp_path)


def test_git_refs_read_from_objects_without_touching_the_worktree(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"src/a.py": "def old():\n    return 1\n", ".gitignore": "ignored.txt\n"},
                                     {"src/a.py": "def new():\n    return 1\n"}])
    (repo / "src" / "a.py").write_text("uncommitted edit\n")
    (repo / "ignored.txt").write_text("ignored")
    (repo / "untracked.txt").write_text("untracked")
    status_before = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        assert (snap.base / "src/a.py").read_text() == "def old():\n    return 1\n"
        assert (snap.head / "src/a.py").read_text() == "def new():\n    return 1\n"
        assert not (snap.head / "untracked.txt").exists() and not (snap.head / "ignored.txt").exists()
        assert snap.diff.files["src/a.py"].added == {1: "def new():"}
    assert (repo / "src" / "a.py").read_text() == "uncommitted edit\n"
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True,
                          text=True).stdout == status_before


def test_export_ignore_does_not_hide_files(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"a.py": "a = 1\n"}, {".gitattributes": "hidden.py export-ignore\n",
                                                          "hidden.py": "LEGACY = 1\n"}])
    with from_git(repo, "HEAD~1", "HEAD") as snap:
        assert (snap.head / "hidden.py").read_text() == "LEGACY = 1\n"


@pytest.mark.parametrize("base,head,message", [("nope", "HEAD", "unknown git ref"), ("HEAD", "--upload-pack=x",
                                                                                     "invalid git ref"),
                                               ("HEAD~9", "HEAD", "unknown git ref")])
def test_bad_refs(tmp_path: Path, base: str, head: str, message: str):
    repo = git_repo(tmp_path / "r", [{"a.py": "a = 1\n"}])
    with pytest.raises(InputError, match=message):
        from_git(repo, base, head)


def test_not_a_repo(tmp_path: Path):
    with pytest.raises(InputError, match="not a git repository"):
        from_git(tmp_path, "HEAD~1", "HEAD")
    with pytest.raises(InputError, match="no such directory"):
        from_dir(tmp_path / "missing")


def test_dir_plus_diff_copies_tracked_files_only(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"a.py": "a = 1\n", ".gitignore": "*.log\n"}])
    (repo / "debug.log").write_text("ignored")
    (repo / "scratch.py").write_text("untracked")
    patch = tmp_path / "p.diff"
    patch.write_text("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n")
    with from_dir(repo, patch) as snap:
        assert sorted(p.name for p in snap.head.iterdir()) == [".gitignore", "a.py"]
        assert (snap.head / "a.py").read_text() == "a = 2\n"
        assert (snap.base / "a.py").read_text() == "a = 1\n"
    assert (repo / "a.py").read_text() == "a = 1\n"


def test_plain_dir_without_diff_is_base_equals_head(tmp_path: Path):
    write_tree(tmp_path / "d", {"x.py": "x = 1\n"})
    with from_dir(tmp_path / "d") as snap:
        assert snap.diff.files == {}
        assert (snap.head / "x.py").read_text() == (snap.base / "x.py").read_text()


def test_case_json_must_be_an_object(tmp_path: Path):
    case = make_case(tmp_path / "c", {"a.py": "a = 1\n"}, {"a.py": "a = 2\n"})
    (case / "case.json").write_text(json.dumps([1, 2]))
    with pytest.raises(InputError, match="object"):
        from_case(case)


def test_special_files_and_symlinked_base_are_not_followed(tmp_path: Path):
    import os

    case = make_case(tmp_path / "c", {"a.py": "a = 1\n"}, {"a.py": "a = 2\n"})
    os.mkfifo(case / "base" / "pipe")
    os.symlink("/etc/passwd", case / "base" / "passwd-link")
    with from_case(case) as snap:
        assert not (snap.base / "pipe").exists()
        assert os.readlink(snap.base / "passwd-link") == "/etc/passwd"
    other = make_case(tmp_path / "d", {"a.py": "a = 1\n"}, {})
    os.rename(other / "base", tmp_path / "real-base")
    os.symlink(tmp_path / "real-base", other / "base")
    with pytest.raises(InputError, match="symlink"):
        from_case(other)


def test_a_repository_without_a_patch_is_its_uncommitted_work_against_head(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n",
                                      ".gitignore": "*.log\n"}])
    (repo / "a.py").write_text("a = 2\n")                     # unstaged
    (repo / "b.py").write_text("b = 2\n")
    subprocess.run(["git", "add", "b.py"], cwd=repo, check=True)   # staged
    (repo / "c.py").unlink()                                  # deleted
    (repo / "new.py").write_text("n = 1\n")                   # untracked, not ignored
    (repo / "debug.log").write_text("ignored")
    with from_dir(repo) as snap:
        assert sorted(snap.diff.files) == ["a.py", "b.py", "c.py", "new.py"]
        assert sorted(p.name for p in snap.base.iterdir()) == [".gitignore", "a.py", "b.py", "c.py"]
        assert sorted(p.name for p in snap.head.iterdir()) == [".gitignore", "a.py", "b.py", "new.py"]
        assert (snap.base / "a.py").read_text() == "a = 1\n" and (snap.head / "a.py").read_text() == "a = 2\n"
        assert "uncommitted changes against HEAD" in snap.label
    assert (repo / "a.py").read_text() == "a = 2\n"   # the working tree is never written


def test_untracked_environment_directories_are_not_part_of_the_change(tmp_path: Path):
    """An untracked .venv (or node_modules, a build, an egg-info…) that the .gitignore forgot is installed,
    not written: it is not the change; a tracked file in such a directory still is the project's."""
    repo = git_repo(tmp_path / "r", [{"app.py": "a = 1\n", "dist/keep.txt": "tracked\n", ".gitignore": "*.log\n"}])
    write_tree(repo, {".venv/lib/python3.11/site-packages/x.py": "x = 1\n", "node_modules/m/index.js": "1;\n",
                      "src/pkg.egg-info/PKG-INFO": "Name: pkg\n", "build/lib/app.py": "a = 1\n",
                      "pkg/__pycache__/m.cpython-311.pyc": "pyc", "dist/keep.txt": "changed\n",
                      "new.py": "n = 1\n"})
    with from_dir(repo) as snap:
        assert sorted(snap.diff.files) == ["dist/keep.txt", "new.py"]
        assert not (snap.head / ".venv").exists() and not (snap.head / "node_modules").exists()


def test_uncommitted_work_in_a_subdirectory_and_in_a_repository_with_no_commit(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"pkg/m.py": "m = 1\n", "top.py": "t = 1\n"}])
    (repo / "pkg" / "m.py").write_text("m = 2\n")
    (repo / "top.py").write_text("t = 2\n")
    with from_dir(repo / "pkg") as snap:
        assert sorted(snap.diff.files) == ["m.py"]
        assert (snap.base / "m.py").read_text() == "m = 1\n"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=fresh, check=True)
    (fresh / "x.py").write_text("x = 1\n")
    with from_dir(fresh) as snap:
        assert list(snap.base.iterdir()) == [] and sorted(snap.diff.files) == ["x.py"]


def test_a_clean_working_tree_is_nothing_to_review_not_a_pass(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"a.py": "a = 1\n"}])
    proc = subprocess.run([str(Path(__file__).resolve().parents[1] / ".venv/bin/showcause"), "review", "--repo",
                           str(repo)], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"showcause: error: nothing to review: the working tree of {repo} has no change against "
                           "HEAD (review a change with --diff FILE or --base REF --head REF)\n")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout.strip()


def test_the_working_tree_against_a_base_ref_holds_committed_and_uncommitted_work(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"a.py": "a = 1\n", "b.py": "b = 1\n", ".gitignore": "*.log\n"},
                                     {"b.py": "b = 2\n"}])
    (repo / "a.py").write_text("a = 2\n")            # unstaged, on top of a committed change to b.py
    (repo / "new.py").write_text("n = 1\n")          # untracked, not ignored
    (repo / "debug.log").write_text("ignored")
    os.mkfifo(repo / "pipe")                         # a special file: never copied
    before = _git(repo, "status", "--porcelain")
    with from_dir(repo, base="HEAD~1") as snap:
        assert sorted(snap.diff.files) == ["a.py", "b.py", "new.py"]
        assert (snap.base / "b.py").read_text() == "b = 1\n" and (snap.head / "b.py").read_text() == "b = 2\n"
        assert sorted(p.name for p in snap.head.iterdir()) == [".gitignore", "a.py", "b.py", "new.py"]
        assert "uncommitted changes against HEAD~1" in snap.label
    assert _git(repo, "status", "--porcelain") == before and (repo / "a.py").read_text() == "a = 2\n"
    with pytest.raises(InputError, match="unknown git ref 'nope'"):
        from_dir(repo, base="nope")
    with pytest.raises(InputError, match="needs a git repository"):
        from_dir(write_tree(tmp_path / "plain", {"x.py": "x = 1\n"}), base="HEAD")


def test_the_default_base_is_where_the_branch_left_the_default_branch(tmp_path: Path):
    repo = git_repo(tmp_path / "r", [{"a.py": "a = 1\n"}, {"a.py": "a = 2\n"}])
    tip = _git(repo, "rev-parse", "HEAD")
    assert default_base(repo) == tip                  # on main itself: its own tip
    _git(repo, "checkout", "-q", "-b", "feature")
    (repo / "b.py").write_text("b = 1\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "feature work")
    assert default_base(repo) == tip
    _git(repo, "branch", "-m", "main", "trunk")       # no origin/HEAD, main or master: HEAD
    assert default_base(repo) == "HEAD"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    _git(fresh, "init", "-q")
    assert default_base(fresh) == "HEAD"
    with pytest.raises(InputError, match="not a git repository"):
        default_base(write_tree(tmp_path / "plain", {"x.py": "x = 1\n"}))
