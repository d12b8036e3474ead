"""One bench attempt on a cluster worker, in a child process of its own.

Each worker thread keeps one child `python -m showcause.bench.remote` in a session of its own and sends
it attempts one at a time, so a timeout can end the whole process group: cancelling a Dask task does not
stop the processes it started. The child
runs the review exactly as a local bench does (the same sandbox per tool call), and ends its sandboxed
processes and itself when its worker dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import showcause
from showcause.bench.attempts import AttemptPolicy, Job, review_attempt
from showcause.bench.cases import load_case
from showcause.bench.costs import Meter, SpendLedger
from showcause.core.errors import Interrupted
from showcause.sandbox.lifecycle import install_handlers, remove_tracked_dirs
from showcause.sandbox.policy import load_policy
from showcause.service import with_isolation

__all__ = ["attempt_on_worker", "main"]

_warm = threading.local()   # this worker thread's warm child process
_GRACE_S = 5.0   # SIGTERM lets the child kill its sandboxed processes (each in a session of its own) first


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, _GRACE_S), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _spawn() -> subprocess.Popen[bytes]:
    root = str(Path(showcause.__file__).resolve().parents[1])   # the child imports this very package
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    return subprocess.Popen([sys.executable, "-m", "showcause.bench.remote"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=tempfile.TemporaryFile(), start_new_session=True, env=env)


def _read_line(proc: subprocess.Popen[bytes], timeout: float | None) -> bytes | None:
    """The child's next answer line; b"" when it died; None when `timeout` passed first."""
    assert proc.stdout is not None
    deadline = None if timeout is None else time.monotonic() + timeout
    buf = b""
    while not buf.endswith(b"\n"):
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return None
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if not ready:
            return None
        chunk = os.read(proc.stdout.fileno(), 1 << 16)
        if not chunk:
            return b""
        buf += chunk
    return buf


def attempt_on_worker(payload: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """Runs on the worker: `{"outcome", "meter"}` of the attempt, `{"timeout": true}` after its process group
    was killed, or `{"crash": …}` when the child died without an answer.

    One warm child per worker thread runs its attempts one at a time (imports are paid once, not per
    record); a timeout kills its whole group and the next attempt starts a fresh one."""
    proc: subprocess.Popen[bytes] | None = getattr(_warm, "proc", None)
    if proc is None or proc.poll() is not None:
        proc = _warm.proc = _spawn()
    assert proc.stdin is not None
    answer: bytes | None = b""
    try:
        proc.stdin.write(json.dumps(payload).encode() + b"\n")
        proc.stdin.flush()
        answer = _read_line(proc, timeout)
    except BrokenPipeError:
        pass
    finally:
        if not answer:   # timed out, died, or this task was interrupted: leave nothing of it running
            _stop(proc)
            _warm.proc = None
    if answer is None:
        return {"timeout": True}
    if not answer:
        return {"crash": _stderr_tail(proc), "returncode": proc.returncode}
    got: dict[str, Any] = json.loads(answer)
    return got


def _stderr_tail(proc: subprocess.Popen[bytes]) -> str:
    err = proc.stderr
    if err is None:
        return ""
    err.seek(0)
    return err.read().decode(errors="replace")[-2000:]


def _watch_parent() -> None:
    # The worker died (killed, or its machine lost): end this attempt as a signal would.
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGTERM)


def _attempt(payload: dict[str, Any]) -> dict[str, Any]:
    config = Path(payload["config"]) if payload["config"] else None
    limits = with_isolation(load_policy(config) if config else load_policy(), payload["isolation"])
    job = Job(load_case(Path(payload["case"])), payload["mode"], payload["model"], payload["run"])
    # Cost limit, retries and rate limit are the coordinator's; this process runs one attempt at a time.
    policy = AttemptPolicy(config=config, base_url=payload["base_url"], retries=0, backoff_s=0.0,
                           unpriced_reserve=payload["unpriced_reserve"], ledger=SpendLedger(Path(os.devnull), None),
                           limits=limits, isolation=payload["isolation"])
    price = payload["price"]
    meter = Meter((float(price[0]), float(price[1])) if price else None)
    outcome = review_attempt(job, policy, meter)
    return {"outcome": outcome, "meter": meter.state()}


def main() -> None:
    install_handlers()
    threading.Thread(target=_watch_parent, daemon=True).start()
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)   # a stray print of anything below goes to stderr, never into the answers
    try:
        for line in sys.stdin:
            answers.write(json.dumps(_attempt(json.loads(line))) + "\n")
            answers.flush()
    except Interrupted as exc:
        remove_tracked_dirs()
        os._exit(128 + exc.signum)


if __name__ == "__main__":
    main()
