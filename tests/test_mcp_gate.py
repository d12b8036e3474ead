"""The MCP server's repository calls (each copies a snapshot) run a few at a time, queue a bounded number,
and refuse the rest at once with BUSY (mcpserver/gate.py); a queued call the client cancels leaves the queue."""

from __future__ import annotations

import threading
import time

import pytest

from showcause.core.errors import Cancelled, ServerBusy, exit_status
from showcause.mcpserver.gate import CallGate
from showcause.sandbox.lifecycle import Scope


def test_calls_beyond_the_running_and_waiting_limits_are_refused_with_busy() -> None:
    gate = CallGate(running=2, waiting=3)
    release = threading.Event()
    peak, lock, outcomes = [0], threading.Lock(), []

    def call() -> None:
        try:
            with gate.slot():
                with lock:
                    peak[0] = max(peak[0], gate.running)
                release.wait(10)
            outcomes.append("ran")
        except ServerBusy as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 10
    while len(outcomes) < 3 and time.monotonic() < deadline:   # 2 run, 3 wait: the other 3 are refused now
        time.sleep(0.01)
    assert outcomes == ["BUSY"] * 3 and (gate.running, gate.waiting) == (2, 3)
    release.set()
    for t in threads:
        t.join(10)
    assert sorted(outcomes) == ["BUSY"] * 3 + ["ran"] * 5 and peak[0] == 2
    assert (gate.running, gate.waiting) == (0, 0)
    assert exit_status(ServerBusy("x")) == 3


def test_a_queued_call_that_is_cancelled_leaves_the_queue_without_running() -> None:
    gate = CallGate(running=1, waiting=4)
    hold, scope, seen = threading.Event(), Scope(), []

    def blocker() -> None:
        with gate.slot():
            hold.wait(10)

    def queued() -> None:
        with scope.active():
            try:
                with gate.slot():
                    seen.append("ran")
            except Cancelled:
                seen.append("cancelled")

    first = threading.Thread(target=blocker)
    first.start()
    while gate.running < 1:
        time.sleep(0.01)
    second = threading.Thread(target=queued)
    second.start()
    while gate.waiting < 1:
        time.sleep(0.01)
    started = time.monotonic()
    scope.cancel()
    second.join(5)
    assert seen == ["cancelled"] and time.monotonic() - started < 2 and gate.waiting == 0
    hold.set()
    first.join(5)


@pytest.mark.parametrize("running", [1, 4])
def test_one_call_at_a_time_never_waits(running: int) -> None:
    gate = CallGate(running=running, waiting=0)
    for _ in range(3):
        with gate.slot():
            assert gate.running == 1
