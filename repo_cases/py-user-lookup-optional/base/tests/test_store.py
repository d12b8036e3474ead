import pytest

from authkit.store import UserNotFound, UserStore


def test_add_and_lookup_normalizes_email() -> None:
    store = UserStore()
    user = store.add(" Ada@Example.org ", "h")
    assert store.get(user.id) is user
    assert store.get_by_email("ADA@example.org") is user


def test_duplicate_email() -> None:
    store = UserStore()
    store.add("a@b.c", "h")
    with pytest.raises(ValueError):
        store.add("A@B.C", "h")


def test_missing_user() -> None:
    store = UserStore()
    with pytest.raises(UserNotFound):
        store.get_by_email("nobody@example.org")
    with pytest.raises(UserNotFound):
        store.get(42)
