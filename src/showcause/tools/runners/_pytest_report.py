"""pytest plugin loaded inside the sandbox: one JSON line per test outcome, written as tests finish.

Written line by line (not at session end) so that a run killed by the timeout still reports what ran.
"""

import json
import os

_PATH = os.environ.get("SHOWCAUSE_REPORT", "")
_seen = {}


def _emit(nodeid, outcome, message):
    if not _PATH:
        return
    with open(_PATH, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": nodeid, "outcome": outcome, "message": message[:400]}) + "\n")


def _message(report):
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None and getattr(crash, "message", ""):
        return crash.message.strip().splitlines()[0]
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def pytest_collectreport(report):
    if report.failed:
        _emit(report.nodeid or "<collection>", "error", _message(report))


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    if report.when == "setup" and report.failed:
        _seen[nodeid] = "error"
        _emit(nodeid, "error", _message(report))
    elif report.when == "setup" and report.skipped:
        _seen[nodeid] = "skipped"
        _emit(nodeid, "skipped", _message(report))
    elif report.when == "call":
        outcome = "failed" if report.failed else "skipped" if report.skipped else "passed"
        _seen[nodeid] = outcome
        _emit(nodeid, outcome, _message(report) if report.failed else "")
    elif report.when == "teardown" and report.failed and _seen.get(nodeid) == "passed":
        _emit(nodeid, "error", _message(report))
