import pytest

from notify.mailer import MemoryTransport, build_message, send_email


def test_send_email() -> None:
    t = MemoryTransport([])
    send_email(t, "ops@acme.example", "Hi", "Body")
    [m] = t.sent
    assert m["To"] == "ops@acme.example"
    assert m.get_content().strip() == "Body"


def test_header_injection_rejected() -> None:
    with pytest.raises(ValueError):
        build_message("a@b.c\nBcc: x@y.z", "s", "b")
    with pytest.raises(ValueError):
        build_message("nobody", "s", "b")
