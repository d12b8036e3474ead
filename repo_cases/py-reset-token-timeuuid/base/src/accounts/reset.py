import hashlib
import hmac
from datetime import datetime, timedelta, timezone

from accounts.mail import Outbox
from accounts.store import AccountStore, ResetRecord
from accounts.tokens import digest, new_token

TOKEN_TTL = timedelta(minutes=30)


class InvalidToken(Exception):
    pass


def _now() -> datetime:
    return datetime.now(timezone.utc)


def hash_password(password: str, salt: bytes) -> str:
    return salt.hex() + ":" + hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1).hex()


def request_reset(store: AccountStore, outbox: Outbox, email: str) -> None:
    account = store.by_email(email)
    if account is None:
        return  # same response for unknown addresses
    token = new_token()
    store.resets[digest(token)] = ResetRecord(account.id, digest(token), _now() + TOKEN_TTL)
    outbox.send_reset(account.email, token)


def confirm_reset(store: AccountStore, token: str, new_password: str, salt: bytes) -> int:
    if len(new_password) < 12:
        raise ValueError("password too short")
    record = store.resets.get(digest(token))
    if record is None or not hmac.compare_digest(record.token_digest, digest(token)):
        raise InvalidToken("unknown token")
    if record.used or record.expires <= _now():
        raise InvalidToken("expired token")
    record.used = True
    store.accounts[record.account_id].password_hash = hash_password(new_password, salt)
    return record.account_id
