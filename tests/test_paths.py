import os
from pathlib import Path

import pytest

from showcause.core.errors import ToolArgumentError
from showcause.sandbox.paths import confine, is_binary, normalize_relpath


@pytest.mark.parametrize("raw,expected", [("a/b.py", "a/b.py"), ("./a//b.py", "a/b.py"), ("", ""), (".", ""),
                                          ("a/./b/../c.py", "a/c.py")])
def test_normalize_accepts_relative(raw, expected):
    assert normalize_relpath(raw) == expected


@pytest.mark.parametrize("raw,reason", [
    ("/etc/passwd", "absolute"), ("~/.ssh/id_rsa", "absolute"), ("C:/x", "absolute"), ("../x", "escapes"),
    ("a/../../x", "escapes"), ("..", "escapes"), (".git/config", ".git"), ("sub/.git/HEAD", ".git"),
    ("a\x00b", "control"), (5, "string"), (["a"], "string"), ("\\\\server\\share", "absolute"),
])
def test_normalize_refuses(raw, reason):
    with pytest.raises(ToolArgumentError, match=reason):
        normalize_relpath(raw)


def test_confine_refuses_symlinks_that_leave_the_root(tmp_path: Path):
    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    (root / "d" / "ok.txt").write_text("fine")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, root / "link.txt")
    os.symlink(tmp_path, root / "dirlink")
    os.symlink("d/ok.txt", root / "inner.txt")
    os.makedirs(root / ".git")
    os.symlink(".git", root / "gitlink")
    with pytest.raises(ToolArgumentError, match="outside"):
        confine(root, "link.txt")
    with pytest.raises(ToolArgumentError, match="outside"):
        confine(root, "dirlink/secret.txt")
    with pytest.raises(ToolArgumentError, match=r"\.git"):
        confine(root, "gitlink")
    path, rel = confine(root, "inner.txt")
    assert path == (root / "d" / "ok.txt").resolve() and rel == "inner.txt"
    with pytest.raises(ToolArgumentError, match="no such file"):
        confine(root, "missing.txt")


def test_is_binary(tmp_path: Path):
    (tmp_path / "b").write_bytes(b"abc\x00def")
    (tmp_path / "t").write_text("plain text\n")
    assert is_binary(tmp_path / "b") and not is_binary(tmp_path / "t")
