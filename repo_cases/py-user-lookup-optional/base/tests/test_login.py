from authkit.login import authenticate
from authkit.passwords import hash_password
from authkit.store import UserStore


def make_store() -> UserStore:
    store = UserStore()
    store.add("ada@example.org", hash_password("correct horse"))
    return store


def test_login_ok() -> None:
    session = authenticate(make_store(), "Ada@example.org", "correct horse")
    assert session is not None
    assert session.user_id == 1
    assert len(session.token) >= 32


def test_wrong_password_unknown_user_and_disabled() -> None:
    store = make_store()
    assert authenticate(store, "ada@example.org", "battery staple") is None
    assert authenticate(store, "eve@example.org", "correct horse") is None
    store.get(1).disabled = True
    assert authenticate(store, "ada@example.org", "correct horse") is None
