import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from nightly import handlers
from nightly.context import Context

Handler = Callable[..., int]


@dataclass(frozen=True)
class JobResult:
    name: str
    ok: bool
    count: int = 0
    error: str = ""


def resolve(handler_name: str) -> Handler:
    func = getattr(handlers, handler_name, None)
    if func is None or handler_name.startswith("_") or not callable(func):
        raise LookupError(f"unknown handler {handler_name!r}")
    return cast(Handler, func)


def run_jobs(jobs: list[dict[str, Any]], ctx: Context) -> list[JobResult]:
    results: list[JobResult] = []
    for job in jobs:
        if not job.get("enabled", True):
            continue
        try:
            count = resolve(job["handler"])(ctx, **job.get("params", {}))
        except Exception as exc:  # one failing job must not stop the others
            results.append(JobResult(job["name"], False, error=f"{type(exc).__name__}: {exc}"))
        else:
            results.append(JobResult(job["name"], True, count))
    return results


def load_jobs(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    names = [job["name"] for job in data["jobs"]]
    if len(names) != len(set(names)):
        raise ValueError("duplicate job names")
    return list(data["jobs"])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else Path("jobs/nightly.json")
    results = run_jobs(load_jobs(path), Context())
    for r in results:
        print(f"{r.name:<12} {'ok' if r.ok else 'FAILED'} {r.count if r.ok else r.error}")
    return 0 if all(r.ok for r in results) else 1
