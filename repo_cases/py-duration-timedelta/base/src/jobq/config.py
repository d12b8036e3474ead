import json
from pathlib import Path
from typing import Any

from jobq.durations import parse_duration
from jobq.jobs import Job


def job_from_dict(data: dict[str, Any]) -> Job:
    return Job(
        name=str(data["name"]),
        handler=str(data["handler"]),
        timeout_s=parse_duration(str(data.get("timeout", "5m"))),
        max_attempts=int(data.get("max_attempts", 3)),
        payload=dict(data.get("payload", {})),
    )


def load_jobs(path: Path) -> list[Job]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [job_from_dict(item) for item in raw["jobs"]]
