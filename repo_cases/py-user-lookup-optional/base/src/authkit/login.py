import secrets

from authkit.models import Session
from authkit.passwords import hash_password, verify_password
from authkit.store import UserNotFound, UserStore

# Verified against when the e-mail is unknown, so both paths cost one PBKDF2 run.
_DUMMY_HASH = hash_password("not-a-real-password", salt=b"\x00" * 16)


def authenticate(store: UserStore, email: str, password: str) -> Session | None:
    try:
        user = store.get_by_email(email)
    except UserNotFound:
        verify_password(password, _DUMMY_HASH)
        return None
    if not verify_password(password, user.password_hash) or user.disabled:
        return None
    return Session(user.id, secrets.token_urlsafe(32))
