import pytest

from notify.templates import render


def test_render_alert() -> None:
    subject, body = render("alert", severity="P1", title="DB down", text="x", runbook="r")
    assert subject == "[P1] DB down"
    assert body.endswith("Runbook: r")


def test_missing_value() -> None:
    with pytest.raises(KeyError):
        render("digest", count=1)
