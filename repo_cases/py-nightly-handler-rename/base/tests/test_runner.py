import json
from pathlib import Path

import pytest

from nightly.context import Context
from nightly.runner import load_jobs, resolve, run_jobs


def test_resolve_rejects_private_and_unknown() -> None:
    with pytest.raises(LookupError):
        resolve("_secret")
    with pytest.raises(LookupError):
        resolve("does_not_exist")


def test_failing_job_does_not_stop_others() -> None:
    jobs = [{"name": "bad", "handler": "nope"}, {"name": "usage", "handler": "send_usage_report"},
            {"name": "off", "handler": "nope", "enabled": False}]
    results = run_jobs(jobs, Context())
    assert [(r.name, r.ok) for r in results] == [("bad", False), ("usage", True)]
    assert "unknown handler" in results[0].error


def test_load_jobs_rejects_duplicates(tmp_path: Path) -> None:
    p = tmp_path / "j.json"
    p.write_text(json.dumps({"jobs": [{"name": "a", "handler": "x"}, {"name": "a", "handler": "y"}]}))
    with pytest.raises(ValueError):
        load_jobs(p)
