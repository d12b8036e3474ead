from datetime import datetime, timezone

from etl.transform import to_event


def test_to_event_normalizes() -> None:
    e = to_event({"id": 7, "user": " Ada ", "ts": "2024-05-01T10:00:00+02:00", "value": "2.5"})
    assert e.event_id == "7" and e.user_id == "ada" and e.kind == "unknown"
    assert e.at == datetime(2024, 5, 1, 8, 0, tzinfo=timezone.utc)
    assert e.value == 2.5


def test_naive_and_z_timestamps_are_utc() -> None:
    assert to_event({"id": 1, "user": "u", "ts": "2024-05-01T10:00:00"}).at.tzinfo == timezone.utc
    assert to_event({"id": 1, "user": "u", "ts": "2024-05-01T10:00:00Z"}).at.hour == 10
