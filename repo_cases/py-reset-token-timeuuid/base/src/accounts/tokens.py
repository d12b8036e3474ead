import hashlib
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """Only the digest of a reset token is stored, so a database leak does not expose live tokens."""
    return hashlib.sha256(token.encode()).hexdigest()
