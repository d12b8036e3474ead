from notify.alerts import alert_oncall
from notify.mailer import MemoryTransport


def test_alert_deduplicates_recipients() -> None:
    t = MemoryTransport([])
    alert_oncall(t, ["a@acme.example", "b@acme.example", "a@acme.example"], "p2", "Queue backlog", "big")
    assert [m["To"] for m in t.sent] == ["a@acme.example", "b@acme.example"]
    assert t.sent[0]["Subject"] == "[P2] Queue backlog"
    assert "queue-backlog" in t.sent[0].get_content()
