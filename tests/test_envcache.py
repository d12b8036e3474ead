"""Case environments are built once however many threads want them (`cases verify` verifies cases in
threads), into a private temporary sibling; a build another process finished first wins, and nothing is
left behind either way."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from showcause.sandbox import envcache


def test_threads_wanting_one_environment_build_it_once(tmp_path: Path) -> None:
    folder = tmp_path / "envs" / "py-abc"
    built: list[int] = []

    def make(tmp: Path) -> None:
        tmp.mkdir()
        built.append(threading.get_ident())
        time.sleep(0.2)   # the build's own work, while the other threads want the same folder
        (tmp / "ready").write_text("1")

    got: list[Path] = []
    threads = [threading.Thread(target=lambda: got.append(envcache._build(folder, make))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert got == [folder] * 6 and len(built) == 1 and (folder / "ready").read_text() == "1"
    assert sorted(p.name for p in folder.parent.iterdir()) == ["py-abc"]


def test_a_build_another_process_finished_first_is_kept_and_ours_dropped(tmp_path: Path) -> None:
    folder = tmp_path / "envs" / "node-abc"

    def make(tmp: Path) -> None:
        tmp.mkdir()
        (tmp / "ours").write_text("1")
        folder.mkdir()                       # the other process renames its build in meanwhile
        (folder / "theirs").write_text("1")

    assert envcache._build(folder, make) == folder
    assert sorted(p.name for p in folder.iterdir()) == ["theirs"]
    assert sorted(p.name for p in folder.parent.iterdir()) == ["node-abc"]
