import json
from pathlib import Path

from jobq.config import job_from_dict, load_jobs


def test_job_defaults() -> None:
    job = job_from_dict({"name": "n", "handler": "h"})
    assert job.timeout_s == 300
    assert job.max_attempts == 3


def test_load_jobs(tmp_path: Path) -> None:
    p = tmp_path / "jobs.json"
    p.write_text(json.dumps({"jobs": [{"name": "purge", "handler": "purge_tmp", "timeout": "1h"}]}))
    [job] = load_jobs(p)
    assert job.timeout_s == 3600
