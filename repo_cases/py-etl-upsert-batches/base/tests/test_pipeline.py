import json
from pathlib import Path

from etl.load import connect
from etl.pipeline import run


def test_run_loads_rows(tmp_path: Path) -> None:
    p = tmp_path / "e.jsonl"
    p.write_text("\n".join(json.dumps({"id": i, "user": "u", "ts": "2024-01-01T00:00:00Z"}) for i in range(3)))
    conn = connect(":memory:")
    assert run(p, conn) == 3
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 3
