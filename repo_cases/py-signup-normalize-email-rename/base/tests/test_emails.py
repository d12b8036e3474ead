import pytest

from signup.emails import InvalidEmail, normalise_email, same_mailbox


def test_normalise_keeps_local_part_case() -> None:
    assert normalise_email("  John.Doe@Example.COM ") == "John.Doe@example.com"


@pytest.mark.parametrize("bad", ["", "no-at", "a@b", "a b@c.d", "a@@b.c"])
def test_invalid(bad: str) -> None:
    with pytest.raises(InvalidEmail):
        normalise_email(bad)


def test_same_mailbox() -> None:
    assert same_mailbox("x@EXAMPLE.org", "x@example.org")
    assert not same_mailbox("X@example.org", "x@example.org")
