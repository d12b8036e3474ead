from datetime import datetime, timedelta, timezone

from nightly.context import Context
from nightly.handlers import purge_expired_sessions, rebuild_search_index, rotate_audit_logs, send_usage_report

NOW = datetime(2024, 4, 1, 2, 0, tzinfo=timezone.utc)


def test_purge_expired_sessions() -> None:
    ctx = Context(now=NOW, sessions={"a": NOW - timedelta(minutes=1), "b": NOW + timedelta(hours=1)})
    assert purge_expired_sessions(ctx) == 1
    assert list(ctx.sessions) == ["b"]


def test_rotate_audit_logs_keeps_recent() -> None:
    ctx = Context(now=NOW, audit_log=[{"at": NOW - timedelta(days=100)}, {"at": NOW - timedelta(days=10)}])
    assert rotate_audit_logs(ctx, keep_days=90) == 1
    assert len(ctx.audit_log) == 1


def test_rebuild_search_index() -> None:
    ctx = Context(now=NOW, documents={"1": "Hello world.", "2": "hello again"})
    rebuild_search_index(ctx)
    assert ctx.search_index["hello"] == {"1", "2"}


def test_usage_report() -> None:
    ctx = Context(now=NOW)
    send_usage_report(ctx)
    assert ctx.outbox == ["2024-04-01: 0 sessions, 0 audit entries"]
