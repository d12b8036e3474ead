from datetime import timedelta

import pytest

from accounts import reset
from accounts.mail import Outbox
from accounts.reset import InvalidToken, confirm_reset, request_reset
from accounts.store import Account, AccountStore

SALT = b"s" * 16


def setup() -> tuple[AccountStore, Outbox]:
    store = AccountStore({1: Account(1, "ada@example.org", "old")})
    return store, Outbox()


def token_from(outbox: Outbox) -> str:
    return outbox.messages[-1][1].split("token=", 1)[1]


def test_full_reset_flow() -> None:
    store, outbox = setup()
    request_reset(store, outbox, "ADA@example.org")
    token = token_from(outbox)
    assert confirm_reset(store, token, "a much longer password", SALT) == 1
    assert store.accounts[1].password_hash != "old"
    with pytest.raises(InvalidToken):
        confirm_reset(store, token, "a much longer password", SALT)


def test_unknown_email_sends_nothing() -> None:
    store, outbox = setup()
    request_reset(store, outbox, "eve@example.org")
    assert outbox.messages == []


def test_expired_token(monkeypatch: pytest.MonkeyPatch) -> None:
    store, outbox = setup()
    request_reset(store, outbox, "ada@example.org")
    later = reset._now() + timedelta(hours=1)
    monkeypatch.setattr(reset, "_now", lambda: later)
    with pytest.raises(InvalidToken):
        confirm_reset(store, token_from(outbox), "a much longer password", SALT)


def test_only_digest_is_stored() -> None:
    store, outbox = setup()
    request_reset(store, outbox, "ada@example.org")
    assert token_from(outbox) not in store.resets
