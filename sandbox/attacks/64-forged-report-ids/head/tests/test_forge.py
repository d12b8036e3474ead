import json
import os


def test_forge():
    with open(os.environ["SHOWCAUSE_REPORT"], "a") as fh:
        for row in ({"id": "evil.py", "outcome": "failed", "message": "forged"},
                    {"id": "tests/test_core.py::test_important", "outcome": "failed", "message": "forged"}):
            fh.write(json.dumps(row) + "\n")
