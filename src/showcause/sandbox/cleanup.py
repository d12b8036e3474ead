"""Removing a tree the code under test wrote into, whatever modes it left, without following any link."""

from __future__ import annotations

import os
import shutil
import stat
from contextlib import suppress
from pathlib import Path

__all__ = ["remove_tree"]


def _open_up(path: str) -> None:
    """Give the owner full rights on `path` if it is a real directory; never act through a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) | stat.S_IRWXU)
    except OSError:
        pass
    finally:
        os.close(fd)


def _retry(_func: object, path: str, _exc: object) -> None:
    # The code under test may leave read-only directories behind: open up the real directories involved and
    # retry once. A link is only ever unlinked itself (a chmod through it would change the host file).
    _open_up(os.path.dirname(path))
    if os.path.isdir(path) and not os.path.islink(path):
        _open_up(path)
        shutil.rmtree(path, ignore_errors=True)
    else:
        with suppress(OSError):
            os.unlink(path)


def remove_tree(root: Path) -> None:
    """Delete `root` and everything below it, whatever modes the code under test left; follows no link."""
    if root.is_symlink():
        root.unlink(missing_ok=True)
        return
    with suppress(FileNotFoundError):
        shutil.rmtree(root, onerror=_retry)
