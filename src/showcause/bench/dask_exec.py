"""`--executor dask://HOST:PORT | dask-local:N`: each attempt of a bench record on a Dask worker.

The coordinator (this process) keeps everything that must be one: the plan, the checkpoint, retries and
the spend ledger. Before an attempt is sent to a worker its whole reserve is claimed from the ledger (the
same lease a local attempt takes), so `--max-cost` holds across workers with no shared state on them. A
worker that dies takes its attempt with it: the scheduler must not silently run the task again
(`allowed-failures` 0), the coordinator charges the lost attempt its whole reserve and retries it as a
transient failure (WORKER_LOST), so a record is neither lost nor written twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from collections.abc import Iterator
from typing import Any

import dask.config
from distributed import Client, LocalCluster

from showcause.bench.attempts import AttemptPolicy, Job, blank_outcome, run_job
from showcause.bench.costs import Meter, price_per_token, review_reserve
from showcause.bench.decision_casefile import DecisionCase
from showcause.bench.remote import attempt_on_worker, warm_worker
from showcause.core.errors import InputError

__all__ = ["EXECUTOR_FORMS", "DaskAttempt", "dask_runner", "local_cluster", "warm_cluster"]

EXECUTOR_FORMS = "local, dask://HOST:PORT or dask-local:N"
_NO_RERUN = {"distributed.scheduler.allowed-failures": 0}
_WARM_TIMEOUT_S = 120.0   # a child that has not warmed by then is stopped; attempts start their own


class DaskAttempt:
    """One attempt, sent to the cluster and waited for; it fills the coordinator's meter."""

    def __init__(self, client: Client, timeout: float | None) -> None:
        self.client = client
        self.timeout = timeout

    def __call__(self, job: Job, policy: AttemptPolicy, meter: Meter) -> dict[str, Any]:
        price = price_per_token(job.model) if job.model else (0.0, 0.0)
        decision = isinstance(job.case, DecisionCase)
        payload = {"case": str(job.case.path.resolve()), "mode": job.mode, "model": job.model, "run": job.run,
                   "config": str(policy.config.resolve()) if policy.config else None,
                   "base_url": policy.base_url if job.model else None, "isolation": policy.isolation,
                   "unpriced_reserve": policy.unpriced_reserve, "price": list(price) if price else None,
                   "decision": decision, "order": list(job.order)}
        lost = review_reserve(job.mode, job.model, policy.unpriced_reserve, policy.limits, decision=decision)
        try:
            got: dict[str, Any] = self.client.submit(attempt_on_worker, payload, self.timeout, pure=False).result()
        except (Exception, asyncio.CancelledError) as exc:   # KilledWorker, a lost scheduler connection
            meter.charge_lost(lost)
            return blank_outcome("WORKER_LOST", f"the worker running this attempt was lost ({type(exc).__name__})")
        if got.get("timeout"):
            meter.charge_lost(lost)
            return blank_outcome("TIMEOUT", f"--record-timeout {self.timeout:g} s: its process group was killed")
        if "crash" in got:
            meter.charge_lost(lost)
            detail = " ".join(str(got["crash"]).split())[-300:]
            return blank_outcome("INTERNAL_ERROR", f"the attempt's process exited {got['returncode']}: {detail}")
        meter.absorb(got["meter"])
        outcome: dict[str, Any] = got["outcome"]
        return outcome


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[LocalCluster]:
    """A cluster of `workers` single-threaded worker processes on this machine that never re-runs a task."""
    with dask.config.set(_NO_RERUN):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        yield cluster
    finally:
        cluster.close()


def _allowed_failures(dask_scheduler: Any) -> int:
    return int(dask_scheduler.allowed_failures)


@contextlib.contextmanager
def _client(executor: str) -> Iterator[Client]:
    local = re.fullmatch(r"dask-local:(\d+)", executor)
    remote = re.fullmatch(r"dask://([^/\s]+:\d+)", executor)
    if local and int(local.group(1)) >= 1:
        with local_cluster(int(local.group(1))) as cluster, Client(cluster) as client:
            yield client
        return
    if not remote:
        raise InputError(f"--executor {executor!r}: expected {EXECUTOR_FORMS}")
    host, _, port = remote.group(1).rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()   # refused: say so at once
        client = Client(f"tcp://{remote.group(1)}", timeout=30)
    except (OSError, TimeoutError) as exc:
        raise InputError(f"--executor {executor}: cannot reach the scheduler ({exc})") from None
    try:
        if client.run_on_scheduler(_allowed_failures) != 0:
            raise InputError(f"--executor {executor}: the scheduler re-runs tasks of dead workers, which would run "
                             "an attempt twice past the cost ledger; start it with "
                             "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0")
        yield client
    finally:
        client.close()


def warm_cluster(client: Client, setup: dict[str, Any]) -> int:
    """One warm child per thread of every worker, started before the bench's clock as the cluster's start is:
    how many are ready. A worker that fails to warm is no error; its first attempts start their own."""
    threads: dict[str, int] = client.nthreads()   # type: ignore[assignment]  # sync client: a dict
    futures = [client.submit(warm_worker, n, setup, _WARM_TIMEOUT_S, workers=[address], allow_other_workers=False,
                             pure=False) for address, n in threads.items()]
    ready = 0
    for future in futures:
        with contextlib.suppress(Exception):
            ready += int(future.result())
    return ready


@contextlib.contextmanager
def dask_runner(executor: str, timeout: float | None, setup: dict[str, Any] | None = None) -> Iterator[Any]:
    """A JobRunner whose attempts run on the cluster `executor` names; the cluster lives as long as the block.
    `setup` (the bench's `config` and `isolation`) warms the workers first."""
    with _client(executor) as client:
        if setup is not None:
            warm_cluster(client, setup)
        attempt = DaskAttempt(client, timeout)

        def runner(job: Job, policy: AttemptPolicy, previous: dict[str, Any] | None) -> dict[str, Any] | None:
            return run_job(job, policy, previous, attempt)

        yield runner
