"""One review of a change, as a user runs it: `showcause review --repo` over the branch, JSON out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .projects import BASE

__all__ = ["Review", "review"]

SHOWCAUSE = str(Path(sys.executable).with_name("showcause"))


@dataclass(frozen=True)
class Review:
    verdict: str
    exit_code: int
    seconds: float
    blocked_tests: tuple[str, ...]     # tests of validated test_regression artifacts
    other_blocks: tuple[str, ...]      # validated artifacts of other kinds (type errors, references)
    ran: tuple[str, ...]               # test files (or ids) run_test ran
    error: str = ""


def _parse(doc: dict[str, object]) -> tuple[list[str], list[str], list[str]]:
    tests: list[str] = []
    others: list[str] = []
    ran: list[str] = []
    for claim in doc.get("claims", []) or []:   # type: ignore[union-attr]
        gate = claim.get("gate") or {}
        if gate.get("status") != "validated" or claim.get("verdict") not in ("MODIFY", "REPLACE"):
            continue
        for art in gate.get("artifacts", []):
            if art.get("type") == "test_regression":
                tests.append(art["detail"].split(" — ", 1)[0].rsplit(": ", 1)[0])
            else:
                others.append(f"{art.get('type')} {art.get('file')}:{art.get('line')}")
    for call in doc.get("tool_calls", []) or []:   # type: ignore[union-attr]
        if call.get("tool") == "run_test":
            ran.extend(call.get("args", {}).get("test", []))
    return tests, others, ran


def review(repo: Path, branch: str, venv: Path | None, *, cold: bool, config: str = "", base: str = BASE) -> Review:
    """`config`: the text of a user config (`--config`), for what the project's CI gives its runner on the command
    line (`[tests] pytest_args = ["--doctest-modules"]`): the review cannot know it from the repository."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    if cold:
        env["SHOWCAUSE_NO_CACHE"] = "1"
    with tempfile.TemporaryDirectory(prefix="oracle-review-") as tmp:
        out = Path(tmp) / "review.json"
        argv = [SHOWCAUSE, "review", "--repo", str(repo), "--base", base, "--head", branch, "--format", "json",
                "--output", str(out)]
        if venv is not None:
            argv += ["--python", str(venv)]
        if config:
            (Path(tmp) / "config.toml").write_text(config, encoding="utf-8")
            argv += ["--config", str(Path(tmp) / "config.toml")]
        started = time.monotonic()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        seconds = time.monotonic() - started
        if not out.is_file():
            return Review("ERROR", done.returncode, seconds, (), (), (), done.stderr[-600:])
        doc = json.loads(out.read_text(encoding="utf-8"))
    tests, others, ran = _parse(doc)
    return Review(str(doc.get("verdict")), done.returncode, seconds, tuple(tests), tuple(others), tuple(ran))
