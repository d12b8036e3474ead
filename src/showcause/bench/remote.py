"""One bench attempt on a cluster worker, in a child process of its own.

Each worker process keeps warm children (`python -m showcause.bench.remote`, each in a session of its own)
and sends each attempt to an idle one, so a timeout can end the whole process group: cancelling a Dask
task does not stop the processes it started. A child runs the review exactly as a local bench does (the
same sandbox per tool call), and ends its sandboxed processes and itself when its worker dies.

A child's first review would pay its cold start: the imports a review loads on first use (the provider's
HTTP stack, the modes, the tools) and the probe of the isolation level, about 1.5 s on 2 busy cores on
top of the 1-2 s the interpreter and this module take. `warm_worker` pays it before the bench's clock
starts, once per worker thread, as the cluster's start is paid.
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
from showcause.bench.decision_arms import ARMS
from showcause.bench.decision_casefile import load_sound_case
from showcause.core.errors import Interrupted, SandboxUnavailable
from showcause.decision.registry import DECISION_MODES
from showcause.judges.registry import CHANGE_MODES
from showcause.policy import Policy, load_policy
from showcause.providers.http import tls_context
from showcause.providers.registry import PROVIDERS
from showcause.sandbox.lifecycle import install_handlers, remove_tracked_dirs
from showcause.sandbox.runner import available_isolation
from showcause.service.inputs import with_isolation

__all__ = ["attempt_on_worker", "main", "warm_worker"]

_idle: list[subprocess.Popen[bytes]] = []   # this worker process's warm children not running an attempt
_idle_lock = threading.Lock()
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


def _take() -> subprocess.Popen[bytes]:
    """An idle warm child, else a fresh one (its first review then pays the cold start)."""
    with _idle_lock:
        while _idle:
            proc = _idle.pop()
            if proc.poll() is None:
                return proc
    return _spawn()


def _ask(proc: subprocess.Popen[bytes], message: dict[str, Any], timeout: float | None) -> bytes | None:
    """The child's answer line; None on a timeout; b"" when it died. The child is stopped unless it answered."""
    assert proc.stdin is not None
    answer: bytes | None = b""
    try:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        answer = _read_line(proc, timeout)
    except BrokenPipeError:
        pass
    finally:
        if not answer:   # timed out, died, or this task was interrupted: leave nothing of it running
            _stop(proc)
    return answer


def _warmed(proc: subprocess.Popen[bytes], setup: dict[str, Any], timeout: float) -> bool:
    answer = _ask(proc, {"warm": setup}, timeout)
    if answer and json.loads(answer).get("warm") is True:
        return True
    _stop(proc)   # not warm: an attempt would pay the cold start anyway, in a child it starts itself
    return False


def warm_worker(children: int, setup: dict[str, Any], timeout: float) -> int:
    """Runs on a worker before a bench starts: idle children topped up to `children` (the new ones started
    together, so their imports overlap, and warmed under the bench's config and isolation); how many idle
    children are ready. A long-lived worker serving bench after bench keeps `children`, no more."""
    with _idle_lock:
        _idle[:] = [p for p in _idle if p.poll() is None]
        missing = max(0, children - len(_idle))
    procs = [_spawn() for _ in range(missing)]
    ready = [p for p in procs if _warmed(p, setup, timeout)]
    with _idle_lock:
        _idle.extend(ready)
        return len(_idle)


def attempt_on_worker(payload: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """Runs on the worker: `{"outcome", "meter"}` of the attempt, `{"timeout": true}` after its process group
    was killed, or `{"crash": …}` when the child died without an answer.

    A warm child runs one attempt at a time and goes back to the idle ones after it; a timeout kills its
    whole group, and a later attempt takes another child."""
    proc = _take()
    answer = _ask(proc, payload, timeout)
    if answer is None:
        return {"timeout": True}
    if not answer:
        return {"crash": _stderr_tail(proc), "returncode": proc.returncode}
    with _idle_lock:
        _idle.append(proc)
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


def _limits(payload: dict[str, Any]) -> tuple[Path | None, Policy]:
    config = Path(payload["config"]) if payload["config"] else None
    return config, with_isolation(load_policy(config) if config else load_policy(), payload["isolation"])


def _warm_up(setup: dict[str, Any]) -> dict[str, Any]:
    """What a first review loads on first use, loaded now: every mode and provider (and with the modes the
    tools they use), the isolation probe and the TLS context. A failure here is no error: the review reports it."""
    try:
        for modes in (CHANGE_MODES, DECISION_MODES, ARMS):
            modes.all()
        PROVIDERS.entries()
        tls_context()
        with contextlib.suppress(SandboxUnavailable):   # an answer too, and the reviews will give it
            available_isolation(_limits(setup)[1])
    except Exception as exc:
        print(f"warm-up failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return {"warm": False}
    return {"warm": True}


def _attempt(payload: dict[str, Any]) -> dict[str, Any]:
    config, limits = _limits(payload)
    path = Path(payload["case"])
    case = load_sound_case(path) if payload.get("decision") else load_case(path)
    job = Job(case, payload["mode"], payload["model"], payload["run"], tuple(payload.get("order") or ()))
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
            message = json.loads(line)
            answer = _warm_up(message["warm"]) if "warm" in message else _attempt(message)
            answers.write(json.dumps(answer) + "\n")
            answers.flush()
    except Interrupted as exc:
        remove_tracked_dirs()
        os._exit(128 + exc.signum)


if __name__ == "__main__":
    main()
