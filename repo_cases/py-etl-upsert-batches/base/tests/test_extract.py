from pathlib import Path

import pytest

from etl.extract import BadRecord, read_jsonl


def test_reads_objects_and_skips_blank_lines(tmp_path: Path) -> None:
    p = tmp_path / "e.jsonl"
    p.write_text('{"id": 1}\n\n{"id": 2}\n')
    assert [r["id"] for r in read_jsonl(p)] == [1, 2]


def test_bad_line_number(tmp_path: Path) -> None:
    p = tmp_path / "e.jsonl"
    p.write_text('{"id": 1}\n[1]\n')
    with pytest.raises(BadRecord) as err:
        list(read_jsonl(p))
    assert err.value.line == 2
