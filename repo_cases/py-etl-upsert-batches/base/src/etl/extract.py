import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class BadRecord(ValueError):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadRecord(number, exc.msg) from None
            if not isinstance(record, dict):
                raise BadRecord(number, "not an object")
            yield record
