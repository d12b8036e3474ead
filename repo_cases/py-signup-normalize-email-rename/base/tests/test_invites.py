from datetime import datetime, timedelta, timezone

from signup.invites import InviteBook

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def test_reinvite_replaces_token() -> None:
    book = InviteBook()
    first = book.invite("bob@Example.org", T0)
    second = book.invite("bob@example.ORG", T0)
    assert list(book.invites) == [second.token] and first.token != second.token


def test_accept_rules() -> None:
    book = InviteBook()
    inv = book.invite("bob@example.org", T0)
    assert not book.accept(inv.token, "eve@example.org", T0)
    assert not book.accept(inv.token, "bob@example.org", T0 + timedelta(days=15))
    assert book.accept(inv.token, "bob@EXAMPLE.org", T0 + timedelta(days=1))
    assert not book.accept(inv.token, "bob@example.org", T0 + timedelta(days=1))
